// What the liteserver trust level remembers across restarts (secure: the newest key block it proved),
// kept in the store so a restart resumes its signature walk there instead of at the network's init
// block. One row: the store holds one chain's history (chain-identity.ts). The service starts its chain
// source before it migrates the store (service.ts), so a memory made `pending` holds the newest key block
// saved until `open()`, called once migrations have created the table.
import type { Kysely } from 'kysely';
import type { BlockIdExt } from '../chain/liteserver/tl/lite-types.js';
import type { TrustMemory } from '../chain/liteserver/trust/head-trust.js';
import { tables, toNum, type Store } from '../store/db.js';

interface TrustTables {
  trusted_key_block: {
    singleton: number;
    workchain: number;
    /** The shard as a signed 64-bit decimal (the masterchain's is -9223372036854775808). */
    shard: string;
    seqno: number | bigint;
    root_hash: string;
    file_hash: string;
    saved_at: number | bigint;
  };
}

export interface StoreTrustMemoryOptions {
  now?: () => number;
  /** The store is not migrated yet: saves are held (the newest) until `open()`. */
  pending?: boolean;
}

export class StoreTrustMemory implements TrustMemory {
  private readonly db: Kysely<TrustTables>;
  private readonly now: () => number;
  private opened: boolean;
  private held: BlockIdExt | null = null;

  constructor(store: Store, options: StoreTrustMemoryOptions = {}) {
    this.db = tables<TrustTables>(store);
    this.now = options.now ?? Date.now;
    this.opened = !options.pending;
  }

  /** The table exists now (migrations ran): writes the key block saved meanwhile, and every later one at once. */
  async open(): Promise<void> {
    this.opened = true;
    const held = this.held;
    this.held = null;
    if (held) await this.save(held);
  }

  async load(): Promise<BlockIdExt | null> {
    let row: TrustTables['trusted_key_block'] | undefined;
    try {
      row = await this.db.selectFrom('trusted_key_block').selectAll().executeTakeFirst();
    } catch (err) {
      // The source starts before migrations (chain-identity.ts): a new store has no table and nothing trusted yet.
      if (/no such table|does not exist/i.test((err as Error).message)) return null;
      throw err;
    }
    if (!row) return null;
    return {
      workchain: toNum(row.workchain),
      shard: BigInt(row.shard),
      seqno: toNum(row.seqno),
      rootHash: Buffer.from(row.root_hash, 'hex'),
      fileHash: Buffer.from(row.file_hash, 'hex'),
    };
  }

  async save(keyBlock: BlockIdExt): Promise<void> {
    if (!this.opened) {
      if (!this.held || this.held.seqno >>> 0 < keyBlock.seqno >>> 0) this.held = keyBlock;
      return;
    }
    const row = {
      workchain: keyBlock.workchain,
      shard: BigInt.asIntN(64, keyBlock.shard).toString(),
      seqno: keyBlock.seqno,
      root_hash: keyBlock.rootHash.toString('hex'),
      file_hash: keyBlock.fileHash.toString('hex'),
      saved_at: this.now(),
    };
    // Only ever forward: a late save of an older key block must not undo a newer one.
    await this.db
      .insertInto('trusted_key_block')
      .values({ singleton: 1, ...row })
      .onConflict((oc) => oc.column('singleton').doUpdateSet(row).where('trusted_key_block.seqno', '<', keyBlock.seqno))
      .execute();
  }
}
