// Telling a server that withholds blocks from one that is behind or has pruned them. A server that answers
// "not in db" (651) for a block the chain has proven to exist, committed by masterchain block n, is
// withholding when its own head is well above n and it still serves masterchain block n−1 (pruning removes
// the oldest blocks first, so a server holding n−1 holds everything after it): it is demoted, not only failed
// over. A server whose head is below n is never asked; one that no longer serves n−1 has pruned, honestly.
import { LiteErrorCode, LiteServerError } from './tl/envelope.js';
import type { LiteMethodName, RequestOf, ResponseOf } from './tl/lite-api.js';
import { LitePoolUnavailableError, type LitePool, type PoolQueryOptions, type QueryFailure } from './transport/pool.js';

const MC_SHARD = -(1n << 63n);
/**
 * How far below a server's reported head a refused block must be to count as withheld: the newest few blocks
 * may not be stored yet by the node answering (several nodes can stand behind one address).
 */
export const WITHHELD_MIN_DEPTH = 8;
/** The probe asks only the suspect; it may take this long before the suspect is given the benefit of the doubt. */
const PROBE_TIMEOUT_MS = 5_000;

export type WithholdingPool = Pick<LitePool, 'status' | 'queryWithServer' | 'demote'>;

/** What a query asks about: a block masterchain block `mcSeqno` commits, proven to exist; `what` names it. */
export interface ExistingBlock {
  mcSeqno: number;
  what: string;
}

/**
 * pool.queryWithServer for a block proven to exist: whether another server answered or none could, the
 * servers that refused it while they must have it are demoted first.
 */
export async function queryExisting<M extends LiteMethodName>(
  pool: WithholdingPool, method: M, request: RequestOf<M>, options: PoolQueryOptions, block: ExistingBlock,
): Promise<{ response: ResponseOf<M>; server: string; failures: QueryFailure[] }> {
  let answered;
  try {
    answered = await pool.queryWithServer(method, request, options);
  } catch (err) {
    if (err instanceof LitePoolUnavailableError) await demoteWithholders(pool, err.failures, block);
    throw err;
  }
  await demoteWithholders(pool, answered.failures, block);
  return answered;
}

/**
 * Demotes every server among `failures` that refused the block while its head is at least WITHHELD_MIN_DEPTH
 * above the committing masterchain block and it serves the masterchain block before that one.
 */
async function demoteWithholders(pool: WithholdingPool, failures: readonly QueryFailure[], { mcSeqno, what }: ExistingBlock): Promise<void> {
  for (const { server, error } of failures) {
    if (!(error instanceof LiteServerError) || error.code !== LiteErrorCode.notReady || mcSeqno < 2) continue;
    const servers = pool.status().servers;
    const head = servers.find((s) => s.server === server)?.head?.seqno;
    if (head === undefined || head < mcSeqno + WITHHELD_MIN_DEPTH) continue; // behind, or the block is too new to judge
    if (!(await serves(pool, server, servers.map((s) => s.server), mcSeqno - 1))) continue; // pruned
    pool.demote(server, `${what} refused: answered ${error.code} (${error.serverMessage}) with its head at ${head}, while it serves masterchain block ${mcSeqno - 1}`, 'withheld');
  }
}

/** Whether `server` (asked alone) answers lookupBlock for masterchain block `seqno`. */
async function serves(pool: WithholdingPool, server: string, all: string[], seqno: number): Promise<boolean> {
  try {
    await pool.queryWithServer('lookupBlock', { mode: 1, id: { workchain: -1, shard: MC_SHARD, seqno } }, {
      exclude: all.filter((s) => s !== server), minSeqno: seqno, timeoutMs: PROBE_TIMEOUT_MS,
    });
    return true;
  } catch {
    return false;
  }
}
