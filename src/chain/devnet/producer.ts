// Builds one devnet tick: basechain shard block M and masterchain block N that commits it, as real
// Block cells (the ledger builds them from the transactions run here).
// A tick executes exactly the messages queued before it — one hop of every trace in flight —
// and queues the internal messages its transactions create for the next tick.
import { createHash } from 'node:crypto';
import type { AccountId, BlockHeader } from '../model.js';
import { EmulationRefused, type Emulator } from './emulator.js';
import { executeMessage, type ExecutedTransaction, type QueuedMessage } from './execute.js';
import type { DevnetLedger, SealedTick } from './ledger.js';
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
  /** The real Block cells of both blocks and the validators' signatures (the ledger moves on its commit()). */
  sealed: SealedTick;
}

export function alignLt(lt: bigint): bigint {
  return ((lt + BLOCK_LT_STEP - 1n) / BLOCK_LT_STEP) * BLOCK_LT_STEP;
}

export function workchainOf(account: AccountId): number {
  return Number(account.slice(0, account.indexOf(':')));
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
  ledger: DevnetLedger;
  /** Make this tick's masterchain block a key block naming the next validator set. */
  rotateValidators?: boolean;
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
        const reason =
          err instanceof EmulationRefused
            ? `not accepted${err.exitCode === null ? '' : ` (exit code ${err.exitCode})`}: ${err.message}`
            : `emulator error: ${err instanceof Error ? err.message : String(err)}`;
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

  const sealed = args.ledger.seal({
    utime,
    shard: { seqno: shardSeqno, startLt: shardStart, endLt: shardRun.endLt, transactions: shardRun.txs.map((t) => t.cell) },
    masterchain: { seqno: masterchainSeqno, startLt: mcStart, endLt: mcRun.endLt, transactions: mcRun.txs.map((t) => t.cell) },
    changes: state.changes(),
    rotate: args.rotateValidators ?? false,
  });
  const header = (built: SealedTick['shard'], startLt: bigint, endLt: bigint): BlockHeader => ({
    workchain: built.id.workchain,
    shard: FULL_SHARD,
    seqno: built.id.seqno,
    rootHash: built.id.rootHash,
    fileHash: built.id.fileHash,
    genUtime: utime,
    startLt,
    endLt,
    mcSeqno: masterchainSeqno,
  });
  const shard = header(sealed.shard, shardStart, shardRun.endLt);
  const masterchain = header(sealed.masterchain, mcStart, mcRun.endLt);
  const transactions = [...mcRun.txs, ...shardRun.txs];
  return {
    masterchain,
    shard,
    transactions,
    state,
    nextInflight: [...shardRun.txs, ...mcRun.txs].sort(byLt).flatMap((t) => t.outMessages),
    dropped,
    counters: { masterchainSeqno, shardSeqno, nextLt: mcRun.endLt, utime },
    sealed,
  };
}

function byLt(a: BlockTransaction, b: BlockTransaction): number {
  return a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : 0;
}
