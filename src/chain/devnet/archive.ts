// The devnet's blocks as a liteserver reads them (the BlockArchive shape of chain/liteserver/server): each
// block's cell and BoC from storage, the state after it while the ledger still holds it in memory (the
// newest blocks), the zero states, and the validators' signatures of masterchain blocks.
import { Cell } from '@ton/core';
import type { SignatureSet } from '../liteserver/tl/lite-types.js';
import type { BlockId } from '../model.js';
import type { ExtBlkRef } from '../tlb/ext-blk-ref.js';
import type { DevnetLedger } from './ledger.js';
import type { DevnetStorage, StoredBlock } from './storage.js';

export interface DevnetArchivedBlock {
  /** Root hash = `root.hash()`, file hash = sha256 of `boc`. */
  id: BlockId;
  root: Cell;
  boc: Buffer;
  /** The ShardStateUnsplit after this block, or null when the devnet no longer keeps it in memory. */
  state: Cell | null;
  keyBlock: boolean;
}

export interface DevnetZeroState {
  ref: ExtBlkRef;
  state: Cell;
  boc: Buffer;
}

export class DevnetArchive {
  constructor(
    private readonly storage: DevnetStorage,
    private readonly ledger: () => DevnetLedger | null,
    private readonly head: () => number,
  ) {}

  /** Newest masterchain block (0 before block 1). */
  get masterchainSeqno(): number {
    return this.head();
  }

  masterchainBlock(seqno: number): DevnetArchivedBlock | undefined {
    if (!Number.isInteger(seqno) || seqno < 1 || seqno > this.head()) return undefined;
    return this.archived(this.storage.block(-1, seqno));
  }

  /** Any block (masterchain or shard) by its root hash in hex. */
  block(rootHash: string): DevnetArchivedBlock | undefined {
    return this.archived(this.storage.blockByRootHash(rootHash));
  }

  /** The validators' signatures of masterchain block `seqno`. */
  signatures(seqno: number): SignatureSet | null {
    return this.storage.block(-1, seqno)?.signatures ?? null;
  }

  /** The zero states block 1 starts from (absent before block 1). */
  zeroStates(): { masterchain: DevnetZeroState; basechain: DevnetZeroState } {
    const byChain = new Map(this.storage.zeroStates().map((z) => [z.workchain, z]));
    const load = (workchain: number): DevnetZeroState => {
      const z = byChain.get(workchain);
      if (!z) throw new Error('the devnet has no zero state before its first block');
      return {
        ref: { seqno: 0, endLt: 0n, rootHash: Buffer.from(z.rootHash, 'hex'), fileHash: Buffer.from(z.fileHash, 'hex') },
        state: Cell.fromBoc(z.boc)[0]!,
        boc: z.boc,
      };
    };
    return { masterchain: load(-1), basechain: load(0) };
  }

  private archived(stored: StoredBlock | null): DevnetArchivedBlock | undefined {
    if (!stored || stored.header.mcSeqno > this.head()) return undefined;
    const { header } = stored;
    return {
      id: { workchain: header.workchain, shard: header.shard, seqno: header.seqno, rootHash: header.rootHash, fileHash: header.fileHash },
      root: Cell.fromBoc(stored.boc)[0]!,
      boc: stored.boc,
      state: this.ledger()?.stateAfter(header.rootHash) ?? null,
      keyBlock: stored.keyBlock,
    };
  }
}
