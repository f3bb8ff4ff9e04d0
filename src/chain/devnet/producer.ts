// Builds one devnet tick: basechain shard block M and masterchain block N that commits it.
// A tick executes exactly the messages queued before it — one hop of every trace in flight —
// and queues the internal messages its transactions create for the next tick.
import { createHash } from 'node:crypto';
import type { AccountId, BlockHeader, HashHex } from '../model.js';
import { EmulationRefused, type Emulator } from './emulator.js';
import { executeMessage, type ExecutedTransaction, type QueuedMessage } from './execute.js';
import { StateOverlay, type AccountReader } from './state.js';

export const MASTERCHAIN = -1;
export const BASECHAIN = 0;
/** Both chains have a single shard covering every account. */
export const FULL_SHARD = '8000000000000000';
/** Each block starts at a multiple of this lt, as sandbox and real collators leave room between blocks. */
export const BLOCK_LT_STEP = 1_000_000n;

export interface ChainCounters {
  masterchainSeqno: number;
  shardSeqno: number;
  /** First lt not used yet. */
  nextLt: bigint;
  /** genUtime of the last block; time never goes back. */
  utime: number;
}

export interface BlockTransaction extends ExecutedTransaction {
  block: { workchain: number; shard: string; seqno: number };
  mcSeqno: number;
}

export interface DroppedMessage {
  message: QueuedMessage;
  reason: string;
}

export interface ProducedTick {
  masterchain: BlockHeader;
  shard: BlockHeader;
  /** Masterchain block first, then the shard block; each in lt order. */
  transactions: BlockTransaction[];
  state: StateOverlay;
  /** Internal messages created by this tick, to execute in the next one. */
  nextInflight: QueuedMessage[];
  /** Messages that produced no transaction (an external no longer accepted, e.g. expired). */
  dropped: DroppedMessage[];
  counters: ChainCounters;
}

export function alignLt(lt: bigint): bigint {
  return ((lt + BLOCK_LT_STEP - 1n) / BLOCK_LT_STEP) * BLOCK_LT_STEP;
}

export function workchainOf(account: AccountId): number {
  return Number(account.slice(0, account.indexOf(':')));
}

/** Stable synthetic hashes: nothing real to hash, but equal inputs always give equal ids. */
function blockHashes(tag: string, txHashes: HashHex[]): { rootHash: HashHex; fileHash: HashHex } {
  const root = createHash('sha256').update(`tonwatch-devnet:block:${tag}`);
  for (const h of txHashes) root.update(h);
  const rootHash = root.digest('hex');
  const fileHash = createHash('sha256').update(`tonwatch-devnet:file:${rootHash}`).digest('hex');
  return { rootHash, fileHash };
}

export function tickRandomSeed(masterchainSeqno: number): Buffer {
  return createHash('sha256').update(`tonwatch-devnet:seed:${masterchainSeqno}`).digest();
}

export async function produceTick(args: {
  emulator: Emulator;
  committed: AccountReader;
  counters: ChainCounters;
  messages: QueuedMessage[];
  wallClockSeconds: number;
}): Promise<ProducedTick> {
  const { emulator, counters, messages } = args;
  const utime = Math.max(counters.utime, args.wallClockSeconds);
  const masterchainSeqno = counters.masterchainSeqno + 1;
  const shardSeqno = counters.shardSeqno + 1;
  const randomSeed = tickRandomSeed(masterchainSeqno);
  const state = new StateOverlay(args.committed);
  const dropped: DroppedMessage[] = [];

  const runBlock = async (workchain: number, seqno: number, startLt: bigint) => {
    let lt = startLt;
    const txs: BlockTransaction[] = [];
    for (const message of messages) {
      if (workchainOf(message.destination) !== workchain) continue;
      try {
        const tx = await executeMessage(emulator, state, message, { now: utime, lt, randomSeed });
        lt = tx.endLt > lt ? tx.endLt : lt + 1n;
        txs.push({ ...tx, block: { workchain, shard: FULL_SHARD, seqno }, mcSeqno: masterchainSeqno });
      } catch (err) {
        // one message the emulator cannot run must not stop the chain: it is dropped and reported
        const reason = err instanceof EmulationRefused ? err.message : `emulator error: ${err instanceof Error ? err.message : String(err)}`;
        dropped.push({ message, reason });
      }
    }
    // transactions of one block are listed by lt, then account
    txs.sort((a, b) => (a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : a.account < b.account ? -1 : 1));
    return { txs, endLt: lt };
  };

  // the shard block comes first in lt; the masterchain block that commits it follows
  const shardStart = alignLt(counters.nextLt);
  const shardRun = await runBlock(BASECHAIN, shardSeqno, shardStart);
  const mcStart = alignLt(shardRun.endLt + 1n);
  const mcRun = await runBlock(MASTERCHAIN, masterchainSeqno, mcStart);

  const header = (
    workchain: number,
    seqno: number,
    startLt: bigint,
    endLt: bigint,
    txs: BlockTransaction[],
    commits = '',
  ) => ({
    workchain,
    shard: FULL_SHARD,
    seqno,
    ...blockHashes(`${workchain}:${FULL_SHARD}:${seqno}:${startLt}:${commits}`, txs.map((t) => t.hash)),
    genUtime: utime,
    startLt,
    endLt,
    mcSeqno: masterchainSeqno,
  });
  const shard = header(BASECHAIN, shardSeqno, shardStart, shardRun.endLt, shardRun.txs);
  const masterchain = header(MASTERCHAIN, masterchainSeqno, mcStart, mcRun.endLt, mcRun.txs, shard.rootHash);
  const transactions = [...mcRun.txs, ...shardRun.txs];
  return {
    masterchain,
    shard,
    transactions,
    state,
    nextInflight: [...shardRun.txs, ...mcRun.txs].sort(byLt).flatMap((t) => t.outMessages),
    dropped,
    counters: { masterchainSeqno, shardSeqno, nextLt: mcRun.endLt, utime },
  };
}

function byLt(a: BlockTransaction, b: BlockTransaction): number {
  return a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : 0;
}
