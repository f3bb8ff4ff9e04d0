// Leadership on real PostgreSQL: a leader cut off from the database by a silent partition (a TCP
// proxy that stops forwarding and closes nothing) stops writing on its own, and a standby takes over
// once the server has ended the leader's session. Two stores on one schema stand for two processes.
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { makePosition, type EventBatch } from '../bus/events.js';
import { FencedError } from '../bus/leadership.js';
import { StoreEventLog } from '../bus/store-log.js';
import { blockHeader } from '../../test/support/model.js';
import { dialects, dropTestStore, openTestStore, PG_URL } from '../../test/support/stores.js';
import { TcpProxy } from '../../test/support/tcp-proxy.js';
import { openStore, type Store } from '../store/db.js';
import { Leadership } from './leadership.js';

function blockBatch(seqno: number): EventBatch {
  const position = makePosition(seqno, 0);
  return { kind: 'block', mcSeqno: seqno, firstPosition: position, lastPosition: position, events: [{ type: 'block', block: blockHeader(seqno), position, mcSeqno: seqno }] };
}

async function until(cond: () => boolean, what: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.runIf(dialects.includes('postgres'))('follower leadership on PostgreSQL', () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
  });

  it('a leader partitioned from the database stops writing at once; a standby takes over when the server ends its session', async () => {
    const direct = await openTestStore('postgres');
    cleanup.push(() => dropTestStore(direct));
    const schema = /\(schema ([a-z0-9_]+)\)/.exec(direct.description)![1]!;
    const upstream = new URL(PG_URL);
    const proxy = await TcpProxy.start({ host: upstream.hostname, port: Number(upstream.port || 5432) });
    const viaProxy = new URL(PG_URL);
    viaProxy.port = String(proxy.port);
    const cut: Store = await openStore({ databaseUrl: viaProxy.toString(), pgSchema: schema, pgPoolSize: 2 });
    const logger = pino({ level: 'silent' });
    const events: string[] = [];
    const member = (name: string, store: Store) => {
      const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
      const leadership = new Leadership({
        store,
        log,
        cluster: true,
        holder: name,
        logger,
        now: Date.now,
        checkMs: 200,
        lead: async (term) => void events.push(`${name} leads (term ${term})`),
        depose: async () => void events.push(`${name} stops`),
      });
      return { log, leadership };
    };
    const a = member('a', cut);
    await a.log.open();
    await a.leadership.start();
    const b = member('b', direct);
    await b.log.open();
    // registered first, run last: the proxy's reset ends every hung connection before anything waits on one
    cleanup.push(async () => {
      await b.leadership.stop();
      await a.leadership.stop();
      await cut.close();
    });
    cleanup.push(() => proxy.close());
    await until(() => a.leadership.status().leader, 'a leads', 10_000);
    await b.leadership.start();
    await a.log.appendBatch(blockBatch(1));
    await new Promise((r) => setTimeout(r, 500));
    expect(b.leadership.status().leader).toBe(false);

    const silencedAt = Date.now();
    proxy.silence();
    await until(() => events.includes('a stops'), 'the partitioned leader stops', 5_000);
    const stoppedMs = Date.now() - silencedAt;
    // it refuses to write without asking the database (which it cannot reach)
    await expect(a.log.appendBatch(blockBatch(2))).rejects.toBeInstanceOf(FencedError);

    await until(() => b.leadership.status().leader, 'the standby takes over', 20_000);
    const takenMs = Date.now() - silencedAt;
    console.log(`leadership: partitioned leader stopped writing after ${stoppedMs} ms; standby led after ${takenMs} ms (checks every 200 ms; server idle_session_timeout 5 s; machine loaded)`);
    expect(b.leadership.status().term).toBe(2);
    expect(a.leadership.status()).toMatchObject({ leader: false, term: null });
    await b.log.catchUp();
    await b.log.appendBatch(blockBatch(2));
    expect(events).toEqual(['a leads (term 1)', 'a stops', 'b leads (term 2)']);
  }, 60_000);
});
