// Keeps a process's view of the event log current when another process writes it (a cluster): the
// writer announces each commit on a PostgreSQL channel (the position only), this LISTENs on a
// connection of its own and reads the new batches from the table; a slow poll covers announcements
// missed while the connection was down, so a lost one only delays.
import type { Logger } from 'pino';
import type pg from 'pg';
import type { Store } from '../store/db.js';
import type { ChangeFeed } from './changes.js';
import type { StoreEventLog } from './store-log.js';

export interface FollowOptions {
  /** Reads the table this often even without announcements. */
  pollMs?: number;
  /** Wait before opening a lost listening connection again. */
  reconnectMs?: number;
  logger?: Logger;
  /** Also hears the announcements of this feed's channel (changes to what components keep in memory). */
  changes?: ChangeFeed;
}

export interface StoreFollow {
  stop(): Promise<void>;
}

/** `log` null: only the change feed's announcements (a process alone on its store, which appends itself). */
export async function followStore(log: StoreEventLog | null, store: Store, options: FollowOptions = {}): Promise<StoreFollow> {
  if (!store.connect) throw new Error('following appends of other processes needs PostgreSQL');
  const connect = store.connect.bind(store);
  const pollMs = options.pollMs ?? 2000;
  const reconnectMs = options.reconnectMs ?? 1000;
  const channel = log ? await log.announceChannel() : null;
  let stopped = false;
  let client: pg.Client | null = null;
  let reconnect: NodeJS.Timeout | null = null;

  const catchUp = () => {
    if (stopped || !log) return;
    log.catchUp().catch((err) => options.logger?.warn({ err }, 'event log catch-up failed; the next announcement or poll retries'));
  };

  const changes = options.changes?.channel ? options.changes : undefined;
  let listenedBefore = false;
  const listen = async (): Promise<void> => {
    const c = await connect(`tonwatch listen pid=${process.pid}`);
    c.on('notification', (message) => {
      if (message.channel === changes?.channel) return changes.received(message.payload ?? '');
      // this process's own appends are published already
      if (log && Number(message.payload) > (log.headPosition() ?? -1)) catchUp();
    });
    c.once('end', () => {
      if (client === c) client = null;
      if (!stopped) scheduleListen();
    });
    if (channel) await c.query(`LISTEN ${quoted(channel)}`);
    if (changes) await c.query(`LISTEN ${quoted(changes.channel!)}`);
    client = c;
    // commits announced while no one listened
    catchUp();
    if (listenedBefore) changes?.missed();
    listenedBefore = true;
  };
  const scheduleListen = () => {
    reconnect = setTimeout(() => {
      reconnect = null;
      listen().catch((err) => {
        options.logger?.warn({ err }, 'event log announcements: listening failed; polling until it works again');
        if (!stopped) scheduleListen();
      });
    }, reconnectMs);
    reconnect.unref();
  };

  await listen();
  const poll = log ? setInterval(catchUp, pollMs) : null;
  poll?.unref();
  return {
    async stop() {
      stopped = true;
      if (poll) clearInterval(poll);
      if (reconnect) clearTimeout(reconnect);
      await client?.end().catch(() => {});
      client = null;
    },
  };
}

function quoted(channel: string): string {
  return `"${channel.replace(/"/g, '""')}"`;
}
