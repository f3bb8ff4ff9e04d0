// How the liteserver source comes to believe a masterchain head: the seam between the trust level and the
// block walk. Everything below a trusted head is proven by hashes (backward links through the head's
// `prev_blocks`, then the walk's prev_ref links); what makes the head itself trusted is the level's business:
// `fast` believes a block that two servers report, `secure` a block proven by validator signatures from the
// network's init block (docs/CHAIN_SOURCE.md, "Trust").
import type { BlockIdExt } from '../tl/lite-types.js';

export type TrustLevel = 'fast' | 'secure';

/** How a level logs (the service passes its logger). */
export type TrustLog = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: object) => void;

/**
 * Proof that the validators signed two chains: nothing from this network is believed any more.
 * `seqno`: two servers each proved a different block at one seqno (`blocks` at `seqno`). `fork`: a new head
 * was proven whose own history holds `ancestor`, not the believed head `blocks[0]`, at `seqno` (the believed
 * head's); `blocks[1]` is the new head, whatever its seqno.
 */
export interface TrustAlarm {
  kind: 'seqno' | 'fork';
  seqno: number;
  /** The block believed (or proven) first, then the one that contradicts it. */
  blocks: [BlockIdExt, BlockIdExt];
  /** The servers that proved each. */
  servers: [string, string];
  /** fork: the block the new head's history holds at `seqno`. */
  ancestor?: BlockIdExt;
  at: string;
}

/** The alarm in one sentence naming both blocks (full root hashes) and both servers. */
export function describeAlarm(alarm: TrustAlarm): string {
  const [a, b] = alarm.blocks;
  const id = (x: BlockIdExt) => `(${x.workchain},${BigInt.asUintN(64, x.shard).toString(16)},${x.seqno}) root ${x.rootHash.toString('hex')}`;
  if (alarm.kind === 'fork') {
    return `liteserver ${alarm.servers[1]} proved masterchain block ${id(b)}, which does not descend from the believed head ${id(a)} (proven by ${alarm.servers[0]})`
      + `${alarm.ancestor ? `: its history holds ${id(alarm.ancestor)} at seqno ${alarm.seqno}` : ''}; the validators signed two chains, nothing from this network is believed any more`;
  }
  return `liteservers ${alarm.servers[0]} and ${alarm.servers[1]} proved different masterchain blocks at seqno ${alarm.seqno}: ${id(a)} and ${id(b)}; `
    + 'the validators signed two chains, nothing from this network is believed any more';
}

/** What a level knows of one server, for `/readyz`, `/metrics` and `tonwatch chain info` (secure). */
export interface ServerTrustReport {
  server: string;
  /** The newest head this server proved. */
  provenSeqno: number | null;
  /** Proofs of this server that failed. */
  failedProofs: number;
  lastFailure: string | null;
  /** Blocks behind the best proven head while lagging beyond the limit, else null. */
  laggingBy: number | null;
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
  /** Per-server proofs, failures and lag (secure; fast leaves it out). */
  servers?: ServerTrustReport[];
  /** The withholding limit: blocks a server's head may lag the best proven head (secure). */
  maxLagBlocks?: number;
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
