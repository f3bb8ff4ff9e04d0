// How the liteserver source comes to believe a masterchain head: the seam between the trust level and the
// block walk. Everything below a trusted head is proven by hashes (backward links through the head's
// `prev_blocks`, then the walk's prev_ref links); what makes the head itself trusted is the level's business:
// `fast` believes a block that two servers report, `secure` a block proven by validator signatures from the
// network's init block (docs/CHAIN_SOURCE.md, "Trust").
import type { BlockIdExt } from '../tl/lite-types.js';

export type TrustLevel = 'fast' | 'secure';

/** Two servers proved different blocks at one seqno: nothing from this network is believed any more. */
export interface TrustAlarm {
  seqno: number;
  blocks: [BlockIdExt, BlockIdExt];
  servers: [string, string];
  at: string;
}

export interface TrustStatus {
  level: TrustLevel;
  /** The newest masterchain block this level believes, or null before the first. */
  head: BlockIdExt | null;
  /** The newest trusted key block (secure; fast leaves it null). */
  keyBlock: BlockIdExt | null;
  /** A walk under way (secure's first start from the init block), for the log and `/readyz`. */
  progress: { from: number; at: number; to: number } | null;
  /** Why no newer head can be believed now ("one server reports 1234, waiting for a second"), or null. */
  waiting: string | null;
  /** Set for good once raised: the source stops publishing and `/readyz` fails with both block ids. */
  alarm: TrustAlarm | null;
}

/** What a level remembers across restarts (secure: the newest trusted key block), kept by the service's store. */
export interface TrustMemory {
  load(): Promise<BlockIdExt | null>;
  save(keyBlock: BlockIdExt): Promise<void>;
}

export interface HeadTrust {
  readonly level: TrustLevel;
  /** Loads what was trusted before; the pool is connected by then. */
  start(): Promise<void>;
  /**
   * `server` reports `id` as its head. Resolves to the newest head now believed (which may be older than
   * `id`, or null when none is yet). A server whose proof fails is demoted by the level itself (through the
   * pool) and the promise still resolves; it throws only for an alarm, which it also keeps in `status()`.
   */
  offer(server: string, id: BlockIdExt): Promise<BlockIdExt | null>;
  status(): TrustStatus;
}
