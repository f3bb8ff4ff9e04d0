// Announcements of changes to what components keep in memory (a webhook's subscriptions), so the
// process that leads sees a change made through another process's API. In one process there is no
// one else to tell: the caller has updated its memory already. In a cluster the announcement is a
// PostgreSQL NOTIFY (topic and key); members hear it on their log-following connection
// (store-follow.ts). A member that may have missed some (its connection was down) is told to reload all.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Store } from '../store/db.js';
import { schemaChannel } from './store-log.js';

/** `key` null: announcements may have been missed; reload everything of the topic. */
export type ChangeHandler = (key: string | null) => void;

export class ChangeFeed {
  /** Tells this process's own announcements apart when they come back. */
  private readonly origin = randomUUID().slice(0, 8);
  private readonly handlers = new Map<string, Set<ChangeHandler>>();

  /**
   * @param db the store, when announcements go to other processes (a cluster); undefined alone.
   * @param channel the PostgreSQL channel (per schema) with `db`.
   */
  constructor(
    private readonly db?: Kysely<any>,
    readonly channel?: string,
  ) {}

  /** Tells the other processes that `key` of `topic` changed in the store (after the change committed). */
  async announce(topic: string, key: string): Promise<void> {
    if (!this.db || !this.channel) return;
    await sql`select pg_notify(${this.channel}, ${JSON.stringify({ o: this.origin, t: topic, k: key })})`.execute(this.db);
  }

  on(topic: string, handler: ChangeHandler): () => void {
    let set = this.handlers.get(topic);
    if (!set) this.handlers.set(topic, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  /** An announcement heard on the channel; this process's own are ignored. */
  received(payload: string): void {
    let message: { o?: string; t?: string; k?: string };
    try {
      message = JSON.parse(payload);
    } catch {
      return;
    }
    if (message.o === this.origin || typeof message.t !== 'string' || typeof message.k !== 'string') return;
    for (const handler of this.handlers.get(message.t) ?? []) handler(message.k);
  }

  /** Announcements may have been missed: every handler reloads everything. */
  missed(): void {
    for (const set of this.handlers.values()) for (const handler of set) handler(null);
  }
}

/** The feed of a store: announced on its schema's channel on PostgreSQL (any process may listen), local on SQLite. */
export async function storeChangeFeed(store: Store): Promise<ChangeFeed> {
  return store.dialect === 'postgres' ? new ChangeFeed(store.db, await schemaChannel(store.db, 'tonwatch_changes')) : new ChangeFeed();
}
