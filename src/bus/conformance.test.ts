// The event-log conformance suite (test/support/event-log.ts) on the store log, on SQLite and
// PostgreSQL; and the proof that the suite catches a log that publishes before its commit.
import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { eventLogChecks, type OpenLog } from '../../test/support/event-log.js';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import type { Store } from '../store/db.js';
import type { EventBatch } from './events.js';
import { StoreEventLog } from './store-log.js';

const openStoreLog: OpenLog = async (store) => {
  const log = new StoreEventLog(store, { retentionMs: 3_600_000, recentBatches: 2 });
  await log.open();
  return log;
};

/** A broken log for the negative check: it tells readers about a batch before it commits. */
class PublishBeforeCommitLog extends StoreEventLog {
  constructor(private readonly backing: Store) {
    super(backing, { retentionMs: 3_600_000 });
  }

  override async appendBatch(batch: EventBatch, alsoInTransaction?: (trx: Kysely<any>) => Promise<void>): Promise<void> {
    this.published(batch);
    await this.backing.db.transaction().execute(async (trx) => {
      await this.append(trx, batch);
      await alsoInTransaction?.(trx);
    });
  }
}

const openBrokenLog: OpenLog = async (store) => {
  const log = new PublishBeforeCommitLog(store);
  await log.open();
  return log;
};

describe.each(dialects)('event-log conformance on %s', (dialect) => {
  let store: Store | null = null;
  afterEach(async () => {
    if (store) await dropTestStore(store);
    store = null;
  });

  describe('the store log', () => {
    for (const check of eventLogChecks) {
      it(check.name, async () => {
        store = await openTestStore(dialect);
        await check.run(store, openStoreLog);
      });
    }
  });

  it('fails a log that publishes before its commit', async () => {
    const failed: string[] = [];
    for (const check of eventLogChecks) {
      const s = await openTestStore(dialect);
      try {
        await check.run(s, openBrokenLog);
      } catch {
        failed.push(check.name);
      } finally {
        await dropTestStore(s);
      }
    }
    expect(failed.length).toBeGreaterThan(0);
    expect(failed).toContain(eventLogChecks.find((c) => c.name.startsWith('nothing is visible'))!.name);
    expect(failed).toContain(eventLogChecks.find((c) => c.name.startsWith('a batch and the writer cursor'))!.name);
  });
});
