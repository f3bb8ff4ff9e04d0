// Options of the replay chain source, their defaults and their checks. The shares of trace kinds and
// their checks are the TONWATCH_REPLAY_SHARES setting's (src/config/replay-shares.ts).
import { checkShares, DEFAULT_SHARES, parseShares, type ReplayShares } from '../../config/replay-shares.js';
import type { AccountId } from '../model.js';

/**
 * How blocks are released:
 * - `timed`: `blocksPerSecond` blocks each second of wall-clock time (the service's replay mode);
 * - `unthrottled`: a block exists as soon as someone asks for the one before it, so the consumer
 *   sets the pace (benchmarks: the source is never what waits);
 * - `manual`: only `produceBlock()` makes blocks (tests).
 */
export type ReplayPace = 'timed' | 'unthrottled' | 'manual';

export interface ReplayOptions {
  /** Transactions per second in `timed` pace; with blocksPerSecond it sets the block size. Default 1000. */
  transactionsPerSecond?: number;
  /** Masterchain blocks per second. Default 1 (each commits one basechain shard block). */
  blocksPerSecond?: number;
  pace?: ReplayPace;
  /** Number of wallet accounts in the pool (each also has a jetton wallet). Default 10,000. */
  accounts?: number;
  /** Use these wallet accounts instead of generated ones (benchmarks that subscribe to known accounts). */
  accountIds?: readonly AccountId[];
  shares?: Partial<ReplayShares>;
  /** Transactions in a TON transfer's trace (extra hops forward the payment onwards). Default 2. */
  traceDepth?: number;
  /** Share of new traces announced as pending messages before their block. Default 0. */
  pendingShare?: number;
  /** Seed of everything random: the same seed gives the same chain. Default 1. */
  seed?: number;
  /** Seqno of the first masterchain block. Default 1. */
  firstSeqno?: number;
  /** Stop after this many blocks (the head then stays). Default: never. */
  maxBlocks?: number;
  /** Most transactions kept for getFinalizedBlock/getTransactions after generation. Default 50,000. */
  historyTransactions?: number;
  /** Most blocks kept, whatever their size. Default 1,000. */
  historyBlocks?: number;
  /** Recorded templates file; default test/fixtures/replay/templates.json. */
  templatesPath?: string | URL;
  /** Wall clock in ms (injectable for deterministic tests). */
  clock?: () => number;
  /**
   * `timed` pace: the wall-clock time (ms) the first block was made. A source started later makes the
   * blocks due since then at once and keeps the pace from there, so processes with the same options
   * and the same start stand at the same block at the same moment (a cluster's nodes). Default: now.
   */
  startAt?: number;
}

export interface ResolvedReplayOptions {
  transactionsPerSecond: number;
  blocksPerSecond: number;
  pace: ReplayPace;
  accountIds: readonly AccountId[] | null;
  accounts: number;
  shares: ReplayShares;
  traceDepth: number;
  pendingShare: number;
  seed: number;
  firstSeqno: number;
  maxBlocks: number;
  historyTransactions: number;
  historyBlocks: number;
  startAt: number | null;
  templatesPath: string | URL | undefined;
  clock: () => number;
}

export const MAX_TRACE_DEPTH = 16;
export const MAX_ACCOUNTS = 1_000_000;

const ACCOUNT_ID = /^-?\d+:[0-9a-f]{64}$/;

/** Bad options fail here with the option's name, never later inside generation. */
export function resolveReplayOptions(options: ReplayOptions = {}): ResolvedReplayOptions {
  const num = (name: string, value: number | undefined, fallback: number, min: number, max: number, integer = false): number => {
    const v = value ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
      throw new RangeError(`replay option ${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${String(value)}`);
    }
    return v;
  };
  const accountIds = options.accountIds ?? null;
  if (accountIds) {
    if (accountIds.length < 2) throw new RangeError('replay option accountIds must hold at least 2 accounts');
    const bad = accountIds.findIndex((a) => typeof a !== 'string' || !ACCOUNT_ID.test(a));
    if (bad >= 0) throw new RangeError(`replay option accountIds[${bad}] must be a raw account id like 0:<64 hex>, got ${JSON.stringify(accountIds[bad])}`);
  }
  const pace = options.pace ?? 'timed';
  if (!['timed', 'unthrottled', 'manual'].includes(pace)) {
    throw new RangeError(`replay option pace must be one of timed, unthrottled, manual, got ${JSON.stringify(pace)}`);
  }
  const blocksPerSecond = num('blocksPerSecond', options.blocksPerSecond, 1, 0.01, 1000);
  const transactionsPerSecond = num('transactionsPerSecond', options.transactionsPerSecond, 1000, 1, 10_000_000);
  if (transactionsPerSecond / blocksPerSecond > 400_000) {
    throw new RangeError('replay options transactionsPerSecond / blocksPerSecond must stay ≤ 400,000 transactions per block (event positions allow 500,000)');
  }
  return {
    transactionsPerSecond,
    blocksPerSecond,
    pace,
    accountIds,
    accounts: accountIds ? accountIds.length : num('accounts', options.accounts, 10_000, 2, MAX_ACCOUNTS, true),
    shares: checkShares({ ...DEFAULT_SHARES, ...options.shares }, 'shares'),
    traceDepth: num('traceDepth', options.traceDepth, 2, 2, MAX_TRACE_DEPTH, true),
    pendingShare: num('pendingShare', options.pendingShare, 0, 0, 1),
    seed: num('seed', options.seed, 1, 0, 2 ** 32 - 1, true),
    firstSeqno: num('firstSeqno', options.firstSeqno, 1, 1, 2 ** 31, true),
    maxBlocks: num('maxBlocks', options.maxBlocks, Number.MAX_SAFE_INTEGER, 1, Number.MAX_SAFE_INTEGER, true),
    historyTransactions: num('historyTransactions', options.historyTransactions, 50_000, 0, 10_000_000, true),
    historyBlocks: num('historyBlocks', options.historyBlocks, 1000, 1, 1_000_000, true),
    templatesPath: options.templatesPath,
    clock: options.clock ?? Date.now,
    startAt: options.startAt === undefined ? null : num('startAt', options.startAt, 0, 0, Number.MAX_SAFE_INTEGER, true),
  };
}

/** The replay source's options from the service configuration (TONWATCH_REPLAY_*, TONWATCH_BLOCK_INTERVAL_MS). */
export function replayOptionsFromConfig(config: {
  replayRate: number;
  replayAccounts: number;
  replayShares: string;
  replayStart?: number;
  blockIntervalMs: number;
}): ReplayOptions {
  return {
    pace: 'timed',
    transactionsPerSecond: config.replayRate,
    blocksPerSecond: 1000 / config.blockIntervalMs,
    accounts: config.replayAccounts,
    shares: parseShares(config.replayShares) ?? DEFAULT_SHARES,
    startAt: config.replayStart,
  };
}
