// Carries provisional events to every node of a cluster (docs/FINALITY.md, "In a cluster"). The leader
// writes each transition its tracker derives to a bounded table and announces its id on the store's change
// feed (a NOTIFY payload is limited to 8000 bytes; an event carries transactions). Every other
// node reads the new rows into its own tracker (`mirror`), finalizes traces from the event log it tails
// anyway, and enforces the bound itself, so a trace it shows in flight ends even if the leader dies.
import v8 from 'node:v8';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ChangeFeed } from '../../bus/changes.js';
import type { EventLog } from '../../bus/types.js';
import { toNum } from '../../store/db.js';
import type { FinalityTracker } from './tracker.js';
import { currentEvent, type ProvisionalEvent, type TraceState } from './types.js';

export const FINALITY_TOPIC = 'finality';
/** Ids are term·2^32 + sequence: unique across leaders without a database sequence, and ordered by term. */
const TERM_STRIDE = 2 ** 32;
const READ_PAGE = 500;

interface RelayTables {
  finality_events: { id: bigint | number; at: bigint | number; payload: Uint8Array };
}

export interface FinalityRelayOptions {
  db: Kysely<any>;
  tracker: FinalityTracker;
  /** The store's change feed on PostgreSQL (a channel every member listens to). */
  changes: ChangeFeed;
  /** This node's view of the event log (followed from the store in a cluster). */
  log: EventLog;
  /** This process's leadership term while it leads, else null. */
  term: () => number | null;
  now: () => number;
  logger?: Logger;
  /** How often a member enforces the bound and the leader trims the table; default as FinalityFeed. */
  sweepIntervalMs?: number;
}

export class FinalityRelay {
  private readonly stops: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private sequence = { term: -1, next: 1 };
  /** Newest row applied (or skipped as this node's own). */
  private lastId = 0;
  private reading: Promise<void> | null = null;
  private readAgain = false;
  private lastTrim = 0;

  constructor(private readonly options: FinalityRelayOptions) {}

  async start(): Promise<void> {
    const { tracker, changes, log } = this.options;
    this.stops.push(tracker.subscribeDerived((event, from) => this.publish(event, from)));
    // listening before the first read: a row written meanwhile is announced and read after it
    this.stops.push(changes.on(FINALITY_TOPIC, () => void this.read()));
    // what the leader relayed within the bound: the traces in flight now, and how those seen end
    await this.read();
    this.stops.push(
      log.subscribe((batch) => {
        if (batch.kind !== 'block' || this.options.term() !== null) return;
        tracker.finalizedTransactions(batch.mcSeqno, batch.events.flatMap((e) => (e.type === 'transaction' ? [e.tx] : [])));
      }),
    );
    const every = this.options.sweepIntervalMs ?? Math.min(1000, Math.max(10, Math.floor(tracker.maxAgeMs / 10)));
    this.timer = setInterval(() => this.tick(), every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    for (const s of this.stops.splice(0)) s();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.writing;
    await this.reading;
  }

  /** The leader relays what its tracker derived; a finalized trace only if it was in flight (members finalize from the log). */
  private publish(event: ProvisionalEvent, from: TraceState | null): void {
    const term = this.options.term();
    if (term === null || (event.finality === 'finalized' && from === null)) return;
    if (this.sequence.term !== term) this.sequence = { term, next: 1 };
    const id = term * TERM_STRIDE + this.sequence.next++;
    const write = async () => {
      await (this.options.db as Kysely<RelayTables>)
        .insertInto('finality_events')
        .values({ id, at: event.at, payload: v8.serialize(event) })
        .execute();
      await this.options.changes.announce(FINALITY_TOPIC, String(id));
    };
    // one at a time, so members read ids in the order the tracker emitted them
    this.writing = this.writing.then(write).catch((err) => this.options.logger?.warn({ err, trace: event.trace, finality: event.finality }, 'a provisional event could not be relayed to the cluster'));
  }

  /** Applies the rows after the last one read; one read at a time, another after it when asked meanwhile. */
  private read(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.readAgain = false;
        await this.readNew().catch((err) => this.options.logger?.warn({ err }, 'relayed provisional events could not be read; the next announcement retries'));
      } while (this.readAgain);
    })().finally(() => (this.reading = null));
    return this.reading;
  }

  private async readNew(): Promise<void> {
    for (;;) {
      const rows = await (this.options.db as Kysely<RelayTables>)
        .selectFrom('finality_events')
        .select(['id', 'payload'])
        .where('id', '>', this.lastId)
        .orderBy('id')
        .limit(READ_PAGE)
        .execute();
      for (const row of rows) {
        const id = toNum(row.id);
        this.lastId = id;
        // this node's own events while it leads are in its tracker already
        if (Math.floor(id / TERM_STRIDE) === this.options.term()) continue;
        // a row an older version wrote lacks the transaction lists: read as it meant
        this.options.tracker.mirror(currentEvent(v8.deserialize(row.payload) as ProvisionalEvent));
      }
      if (rows.length < READ_PAGE) return;
    }
  }

  /** A member enforces the bound itself (the leader's feed does on the leader); the leader trims the table. */
  private tick(): void {
    const { tracker, now } = this.options;
    if (this.options.term() === null) {
      tracker.sweep();
      return;
    }
    if (now() - this.lastTrim < tracker.maxAgeMs) return;
    this.lastTrim = now();
    const before = now() - 2 * tracker.maxAgeMs;
    (this.options.db as Kysely<RelayTables>)
      .deleteFrom('finality_events')
      .where('at', '<', before)
      .execute()
      .catch((err) => this.options.logger?.warn({ err }, 'old relayed provisional events could not be deleted'));
  }
}
