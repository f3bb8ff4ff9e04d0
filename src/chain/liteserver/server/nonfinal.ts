// The shard blocks a liteserver shows before the masterchain commits them, as a current node with
// --nonfinal-ls does (docs/FINALITY.md): liteServer.nonfinal.getPendingShardBlocks lists the newest signed
// block and any newer candidate per shard; liteServer.getBlock serves their data.
import type { BlockId } from '../../model.js';
import type { BlockIdExt, PendingShardBlocks } from '../tl/lite-api.js';
import { tlBlockIdOf } from './block-id.js';

interface Shown {
  id: BlockId;
  signed: boolean;
  boc: Buffer;
}

export class NonFinalBlocks {
  /** Per shard (`wc:shard`): the newest signed block, and the newest candidate above it. */
  private readonly signed = new Map<string, Shown>();
  private readonly candidates = new Map<string, Shown>();

  /** Shows a block; a signed one at a seqno replaces what was shown there (another block won that place). */
  show(block: Shown): void {
    const key = `${block.id.workchain}:${block.id.shard}`;
    const into = block.signed ? this.signed : this.candidates;
    const current = into.get(key);
    if (!current || current.id.seqno <= block.id.seqno) into.set(key, block);
    const candidate = this.candidates.get(key);
    if (block.signed && candidate && candidate.id.seqno <= block.id.seqno) this.candidates.delete(key);
  }

  /** Forgets what the masterchain committed: blocks of `workchain:shard` at or below `seqno` (all shards when absent). */
  committed(top?: { workchain: number; shard: string; seqno: number }): void {
    for (const map of [this.signed, this.candidates]) {
      for (const [key, shown] of map) {
        if (!top || (key === `${top.workchain}:${top.shard}` && shown.id.seqno <= top.seqno)) map.delete(key);
      }
    }
  }

  /** The answer to getPendingShardBlocks (mode bit 0: only shards intersecting `wc:shard`). */
  pending(filter?: { wc: number; shard: bigint }): PendingShardBlocks {
    const pick = (map: Map<string, Shown>) =>
      [...map.values()].filter((b) => !filter || (b.id.workchain === filter.wc && intersects(b.id.shard, filter.shard))).map((b) => tlBlockIdOf(b));
    return { signedBlocks: pick(this.signed), candidates: pick(this.candidates) };
  }

  /** The BoC of a shown block with exactly this id, or null. */
  boc(id: BlockIdExt): Buffer | null {
    for (const shown of [...this.signed.values(), ...this.candidates.values()]) {
      const tl = tlBlockIdOf(shown);
      if (tl.workchain === id.workchain && tl.shard === BigInt.asIntN(64, id.shard) && tl.seqno === id.seqno && tl.rootHash.equals(id.rootHash) && tl.fileHash.equals(id.fileHash)) {
        return shown.boc;
      }
    }
    return null;
  }
}

/** Two shard prefixes intersect when one contains the other. */
function intersects(shardHex: string, other: bigint): boolean {
  const a = BigInt(`0x${shardHex}`);
  const b = BigInt.asUintN(64, other);
  const lowBit = (x: bigint) => x & -x;
  const [wide, narrow] = lowBit(a) >= lowBit(b) ? [a, b] : [b, a];
  const mask = ~(lowBit(wide) * 2n - 1n) & ((1n << 64n) - 1n);
  return (wide & mask) === (narrow & mask);
}
