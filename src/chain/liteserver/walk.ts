// The block walk (liteserver.md §Q3): masterchain block n and every shard block it newly commits, fetched
// from untrusted liteservers and proven by hashes alone, starting from the trusted masterchain block n−1.
// lookupBlock's header proof, the full block's root and file hash, its prev_ref to n−1; then each new shard
// top from its shard_hashes, walked back through prev_ref (splits and merges) to the tops of n−1, each
// block checked against the hashes its child (or the ShardDescr) names. A walk stays on one server; a
// reply that fails a check demotes that server and the walk starts again on another. A server that refuses
// a block it must have (withheld.ts) is demoted too, while the pool fails over to another.
import type { Cell } from '@ton/core';
import type { CellRef } from '../cell/cell.js';
import type { BlockHeader, FinalizedBlock, SourcedTransaction } from '../model.js';
import { decodeBlock, type DecodedBlock } from '../decode/block.js';
import type { ShardBlockRef } from '../decode/shard-hashes.js';
import type { BlockIdExt } from './tl/lite-api.js';
import type { LitePool } from './transport/pool.js';
import { describeBlock, shardIdHex, type BlockRef } from './trust/block-ref.js';
import { checkBlockHeaderProof, checkFullBlock, checkPrevLinks, parentShards } from './trust/blocks.js';
import { ProofError } from './trust/errors.js';
import { hashHex } from './trust/merkle.js';
import { checkedQuery } from './checked-query.js';
import { queryExisting } from './withheld.js';

const MC_SHARD = -(1n << 63n);

/** A trusted masterchain block and the shard tops it lists (where the next walk stops). */
export interface TrustedMasterchain {
  id: BlockRef;
  tops: BlockRef[];
}

export interface WalkedBlock {
  block: FinalizedBlock;
  /** Block n and its tops: the `prev` of the walk of n+1. */
  trusted: TrustedMasterchain;
  /** The server whose replies made it. */
  server: string;
}

export interface BlockWalkerOptions {
  /** The server to start on (later walks stay on the last one that worked). */
  server?: string;
  /** Shard blocks one walk may fetch before it gives up (a server leading it astray). */
  maxShardBlocks?: number;
}

/** One walk attempt failed because a server's reply failed a check. */
export class WalkProofError extends Error {
  constructor(readonly server: string, override readonly cause: ProofError) {
    super(`liteserver ${server}: ${cause.message}`);
    this.name = 'WalkProofError';
  }
}

export class BlockWalker {
  private pinned: string | undefined;

  constructor(
    private readonly pool: LitePool,
    private readonly options: BlockWalkerOptions = {},
  ) {
    this.pinned = options.server;
  }

  /** Starts the next walk on this server (sticky sessions; undefined lets the pool choose). */
  pin(server: string | undefined): void {
    this.pinned = server;
  }

  /**
   * Masterchain block `n` with the shard blocks it commits, every block proven from `prev` (block n−1).
   * Null when no server has reached n yet. Throws when every server failed a check or none could answer.
   * `expected`: block n's id when already proven (a backward link from a trusted head); the walk then
   * fetches exactly that block instead of asking lookupBlock which block n is.
   */
  async getFinalizedBlock(n: number, prev: TrustedMasterchain, expected?: BlockIdExt): Promise<WalkedBlock | null> {
    if (prev.id.seqno !== n - 1 || prev.id.workchain !== -1) throw new Error(`the trusted block before ${n} must be masterchain block ${n - 1}, got ${describeBlock(prev.id)}`);
    const servers = this.pool.status().servers.length;
    const failures: string[] = [];
    for (let attempt = 0; attempt < Math.max(1, servers); attempt++) {
      if (!this.pool.status().servers.some((s) => s.head !== undefined && s.head.seqno >= n)) return null;
      try {
        const walked = await this.walk(n, prev, expected);
        this.pinned = walked.server;
        return walked;
      } catch (err) {
        if (!(err instanceof WalkProofError)) throw err;
        // The reply was disproven: that server goes to the back and the walk starts over elsewhere.
        this.pool.demote(err.server, err.cause.message);
        failures.push(err.message);
        this.pinned = undefined;
      }
    }
    throw new Error(`masterchain block ${n}: every liteserver failed a proof check (${failures.join('; ')})`);
  }

  /**
   * Reads masterchain block `id` (already trusted) for its shard tops: the `prev` of a walk that starts there.
   * A server whose block fails the hashes is demoted and another is asked; throws when none is left.
   */
  async trusted(id: BlockRef): Promise<TrustedMasterchain> {
    if (id.fileHash === undefined) throw new Error(`a trusted block needs its file hash: ${describeBlock(id)}`);
    // A forger here would stop every walk that starts at this block: its reply demotes it and another is asked.
    const trusted = await checkedQuery(this.pool, 'getBlock', { id: tlId(id) }, { minSeqno: id.seqno, prefer: this.pinned }, (r) => {
      const block = checkFullBlock(r.data, id, 'mc');
      return { id, tops: topsOf(decodeBlock(block.block, { fileHash: hashHex(id.fileHash!) })) };
    }, { exists: { mcSeqno: id.seqno, what: `block ${describeBlock(id)}` } });
    // `prefer` outranks demotion in the pool: a pinned server demoted here must not start the next walk
    if (this.pinned && this.pool.status().servers.some((s) => s.server === this.pinned && s.demoted)) this.pinned = undefined;
    return trusted;
  }

  private async walk(n: number, prev: TrustedMasterchain, expected?: BlockIdExt): Promise<WalkedBlock> {
    let server = this.pinned;
    const ask: Ask = async (method, request, minSeqno, what) => {
      // Every block a walk asks for exists: block n is under the believed head, shard blocks are named by proven hashes.
      const r = await queryExisting(this.pool, method, request as never, { minSeqno, prefer: server }, { mcSeqno: minSeqno, what });
      server = r.server; // the walk stays where the answers come from (the pool may have failed over)
      return r;
    };

    const id = expected ?? (await this.lookup(ask, n));
    if (id.workchain !== -1 || id.seqno !== n) throw new Error(`the proven id of masterchain block ${n} is ${describeBlock(id)}`);

    const fetched = await this.fetchBlock(ask, id, n, 'mc');
    this.checked(fetched.server, () => checkPrevLinks(fetched.info, [prev.id], 'mc.prev_ref'));
    const mc = fetched.decoded;

    const prevTops = new Map(prev.tops.map((t) => [hashHex(t.rootHash), t]));
    const seen = new Set<string>();
    const shards: DecodedBlock[] = [];
    const budget = { left: this.options.maxShardBlocks ?? 10_000 };
    for (const top of mc.shardBlocks ?? []) {
      if (top.regMcSeqno !== n) continue;
      if (prevTops.has(top.rootHash)) throw new Error(`masterchain block ${n} registers ${describeBlock(top)}, given as a top of block ${n - 1}`);
      await this.walkShard(ask, n, top, prevTops, seen, shards, budget);
    }

    const header0: BlockHeader = headerOf(mc, n);
    const transactions = [mc, ...shards].flatMap((b) => b.transactions) as SourcedTransaction[];
    return {
      block: { masterchain: header0, shards: shards.map((b) => headerOf(b, n)), transactions },
      trusted: { id: blockRefOf(mc), tops: topsOf(mc) },
      server: server ?? fetched.server,
    };
  }

  /** Which block is masterchain block n, as a server says and its header proof shows. */
  private async lookup(ask: Ask, n: number): Promise<BlockIdExt> {
    const looked = await ask('lookupBlock', { mode: 1, id: { workchain: -1, shard: MC_SHARD, seqno: n } }, n, `masterchain block ${n}`);
    const header = looked.response as { id: BlockIdExt; headerProof: Buffer };
    const id = header.id;
    this.checked(looked.server, () => checkBlockHeaderProof(header.headerProof, id, 'mc.header'));
    if (id.workchain !== -1 || id.seqno !== n) throw new WalkProofError(looked.server, new ProofError('mc.header.id', 'mismatch', `lookupBlock(${n}) answered ${describeBlock(id)}`));
    return id;
  }

  /** Shard block `ref` and, first, its ancestors down to the previous tops; each emitted once. */
  private async walkShard(
    ask: Ask, n: number, ref: BlockRef, prevTops: Map<string, BlockRef>, seen: Set<string>, out: DecodedBlock[], budget: { left: number },
  ): Promise<void> {
    const root = hashHex(ref.rootHash);
    if (prevTops.has(root) || seen.has(root)) return;
    const shard = shardIdHex(ref.shard);
    for (const top of prevTops.values()) {
      // Seqnos grow along every path (a split's halves and a merge continue above their parents): a block
      // at or below an overlapping previous top that is not that top means the walk went past it.
      // Every hash on the way is proven, so no server can cause this: the tops given for n−1 are wrong.
      if (top.workchain === ref.workchain && overlaps(shardIdHex(top.shard), shard) && ref.seqno <= top.seqno) {
        throw new Error(`masterchain block ${n}: shard block ${describeBlock(ref)} is not above the previous top ${describeBlock(top)}; are the tops those of block ${n - 1}?`);
      }
    }
    if (--budget.left < 0) throw new Error(`masterchain block ${n}: more than ${this.options.maxShardBlocks ?? 10_000} shard blocks under it`);
    const fetched = await this.fetchBlock(ask, tlId(ref), n, 'shard');
    const info = fetched.info;
    const shardsOfParents = parentShards(info);
    const parents: BlockRef[] = info.prev.map((p, i) => ({ workchain: info.workchain, shard: shardsOfParents[i]!, seqno: p.seqno, rootHash: p.rootHash, fileHash: p.fileHash }));
    this.checked(fetched.server, () => checkPrevLinks(info, parents, 'shard.prev_ref'));
    for (const parent of parents) await this.walkShard(ask, n, parent, prevTops, seen, out, budget);
    seen.add(root);
    out.push(fetched.decoded);
  }

  /** getBlock checked against `id`'s root and file hash, decoded with the committing masterchain seqno. */
  private async fetchBlock(ask: Ask, id: BlockIdExt | BlockRef, n: number, check: string) {
    const tl = tlId(id);
    const { response, server } = await ask('getBlock', { id: tl }, n, `block ${describeBlock(tl)}`);
    const data = (response as { data: Buffer }).data;
    const block = this.checked(server, () => checkFullBlock(data, tl, check));
    const decoded = this.checked(server, () => decodeProven(block.block, hashHex(tl.fileHash), n, check));
    return { info: block.info, decoded, server };
  }

  /** Runs a check; its ProofError becomes a WalkProofError that names the server to demote. */
  private checked<T>(server: string, check: () => T): T {
    try {
      return check();
    } catch (err) {
      if (err instanceof ProofError) throw new WalkProofError(server, err);
      throw err;
    }
  }
}

/** A query of the walk: `minSeqno` is the masterchain block that commits what it asks for, `what` names it. */
type Ask = (method: 'lookupBlock' | 'getBlock', request: object, minSeqno: number, what: string) => Promise<{ response: unknown; server: string }>;

/** decodeBlock of a proven root; a layout the decoders refuse is a malformed reply. */
function decodeProven(root: Cell | CellRef, fileHash: string, n: number, check: string): DecodedBlock {
  try {
    return decodeBlock(root, { mcSeqno: n, fileHash });
  } catch (err) {
    throw new ProofError(`${check}.decode`, 'malformed', (err as Error).message);
  }
}

function overlaps(a: string, b: string): boolean {
  const x = BigInt(`0x${a}`), y = BigInt(`0x${b}`);
  const lx = x & -x, ly = y & -y;
  return (x - lx < y + ly) && (y - ly < x + lx);
}

function tlId(id: BlockRef | BlockIdExt): BlockIdExt {
  const hex = shardIdHex(id.shard);
  const bytes = (h: BlockRef['rootHash'] | undefined) => Buffer.from(hashHex(h ?? ''), 'hex');
  return { workchain: id.workchain, shard: BigInt.asIntN(64, BigInt(`0x${hex}`)), seqno: id.seqno, rootHash: bytes(id.rootHash), fileHash: bytes(id.fileHash) };
}

function blockRefOf(b: DecodedBlock): BlockRef {
  const h = b.header;
  return { workchain: h.workchain, shard: h.shard, seqno: h.seqno, rootHash: h.rootHash, fileHash: h.fileHash };
}

function topsOf(mc: DecodedBlock): BlockRef[] {
  return (mc.shardBlocks ?? []).map((t: ShardBlockRef) => ({ workchain: t.workchain, shard: t.shard, seqno: t.seqno, rootHash: t.rootHash, fileHash: t.fileHash }));
}

function headerOf(b: DecodedBlock, n: number): BlockHeader {
  const h = b.header;
  return { workchain: h.workchain, shard: h.shard, seqno: h.seqno, rootHash: h.rootHash, fileHash: h.fileHash, genUtime: h.genUtime, startLt: h.startLt, endLt: h.endLt, mcSeqno: n };
}
