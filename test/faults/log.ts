// Reading back the whole event log, for tests that count what was lost or repeated.
import type { EventBatch } from '../../src/bus/events.js';
import type { EventLog } from '../../src/bus/types.js';

/** Every retained batch, oldest first. */
export async function readWholeLog(log: EventLog): Promise<EventBatch[]> {
  const batches: EventBatch[] = [];
  let after = -1;
  for (;;) {
    const page = await log.readAfter(after, 500);
    if (!page.length) return batches;
    batches.push(...page);
    after = page[page.length - 1]!.lastPosition;
  }
}

/** How many times each transaction hash appears in the log's transaction events. */
export function logTransactions(batches: EventBatch[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const b of batches) for (const e of b.events) if (e.type === 'transaction') counts.set(e.tx.hash, (counts.get(e.tx.hash) ?? 0) + 1);
  return counts;
}
