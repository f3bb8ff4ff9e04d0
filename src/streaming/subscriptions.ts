// The subscription index: which connections want an event. Account → routes for transactions,
// traces and filtered mempool; ALL routes; block routes by workchain. One lookup per account an
// event touches, whatever the number of connections; a connection receives an event at most once.
import type { AccountId } from '../chain/model.js';
import type { ChainEvent, Position } from '../bus/events.js';
import { PLAIN, PreparedEvent, WITH_INVOLVED, involvedAccounts, type PayloadVariant } from './frames.js';
import { matchesAnyOperation, matchesOperation, type OperationFilter } from './operations.js';
import { pendingOpcodes, traceOpcodes } from './opcodes.js';

/** A connection as the index sees it. */
export interface Subscriber {
  /** Serial of the last event delivered: a connection gets an event once even when several routes match. */
  stamp: number;
  /** Where this subscriber's last delivery of the batch being dispatched is in its list (set while matching). */
  lastDelivery: number;
  /**
   * Queues the event's frame until the batch's last one for this subscriber is queued (see dispatch).
   * `event` is the dispatcher's, reused for the next event: keep the frames it builds, not it.
   */
  deliver(event: PreparedEvent, variant: PayloadVariant): void;
}

/** One subscription of a connection, shared by every account it lists. */
export class Route {
  constructor(
    readonly subscriber: Subscriber,
    readonly ops: OperationFilter,
    /** Only events after this position (resume); -1 for every event. */
    public after: Position,
    /** Blocks: the workchain, or null for all. */
    readonly workchain: number | null = null,
  ) {}
}

type Slot = Route | Route[];

/** account → routes; a single route is stored bare, as it is by far the common case. */
export class AccountRoutes {
  private readonly map = new Map<AccountId, Slot>();

  get size(): number {
    return this.map.size;
  }

  add(account: AccountId, route: Route): void {
    const slot = this.map.get(account);
    if (slot === undefined) this.map.set(account, route);
    else if (Array.isArray(slot)) slot.push(route);
    else this.map.set(account, [slot, route]);
  }

  remove(account: AccountId, route: Route): void {
    const slot = this.map.get(account);
    if (slot === undefined) return;
    if (!Array.isArray(slot)) {
      if (slot === route) this.map.delete(account);
      return;
    }
    const i = slot.indexOf(route);
    if (i < 0) return;
    slot.splice(i, 1);
    if (slot.length === 1) this.map.set(account, slot[0]!);
  }

  get(account: AccountId): Slot | undefined {
    return this.map.get(account);
  }
}

let serialCounter = 0;

export class SubscriptionIndex {
  readonly transactions = new AccountRoutes();
  readonly allTransactions = new Set<Route>();
  readonly traces = new AccountRoutes();
  readonly allTraces = new Set<Route>();
  /** Mempool with an accounts filter, matched against the message's involved accounts. */
  readonly mempool = new AccountRoutes();
  readonly allMempool = new Set<Route>();
  readonly blocks = new Set<Route>();

  // State of the event being matched (fields, not closures: this loop runs for every event).
  private serial = 0;
  private event: ChainEvent | null = null;
  private eventIndex = 0;
  /** Opcodes of the trace or pending message being matched, read once (see opcodes.ts). */
  private opcodes: readonly number[] | null = null;
  /** The batch's deliveries in order, `count` of them: to whom, which event (index), which payload variant. */
  private readonly to: Array<Subscriber | null> = [];
  private readonly of: number[] = [];
  private readonly as: PayloadVariant[] = [];
  private count = 0;
  /** One PreparedEvent for every event delivered (see PreparedEvent.reset); null until the first delivery. */
  private prepared: PreparedEvent | null = null;

  /**
   * Delivers each event to the subscribers whose routes match it, in order, and calls `written` for a
   * subscriber right after its last delivery of the batch. Matching comes first (it only lists the
   * deliveries); framing follows, so a subscriber's frames can be written while later events of the
   * batch are still being framed for others — each subscriber still gets one write per batch.
   */
  dispatch(events: readonly ChainEvent[], written: (subscriber: Subscriber) => void): void {
    this.count = 0;
    for (let i = 0; i < events.length; i++) this.match(events[i]!, i);
    this.event = null;
    const n = this.count;
    this.count = 0;
    const { to, of, as } = this;
    let prepared: PreparedEvent | null = null;
    let current = -1;
    try {
      for (let i = 0; i < n; i++) {
        if (of[i] !== current) {
          current = of[i]!;
          prepared = this.prepare(events[current]!);
        }
        const subscriber = to[i]!;
        subscriber.deliver(prepared!, as[i]!);
        if (subscriber.lastDelivery === i) written(subscriber);
      }
    } finally {
      // no connection stays referenced by a finished batch
      to.fill(null, 0, n);
      this.prepared?.release();
    }
  }

  private match(event: ChainEvent, index: number): void {
    this.serial = ++serialCounter;
    this.event = event;
    this.eventIndex = index;
    switch (event.type) {
      case 'transaction':
        this.matchTransaction(event.tx.account, event.tx.inMessage?.opcode ?? null);
        break;
      case 'trace':
        this.opcodes = null;
        // a busy block completes hundreds of traces of a few accounts each: no lookups when nobody follows traces
        if (this.traces.size > 0) for (const account of event.trace.accounts) this.sendSlot(this.traces.get(account), PLAIN, ROUTE_TRACE);
        for (const r of this.allTraces) this.sendIf(r, PLAIN, ROUTE_TRACE);
        break;
      case 'mempool':
        this.opcodes = null;
        for (const r of this.allMempool) this.sendIf(r, PLAIN, ROUTE_MEMPOOL);
        if (this.mempool.size === 0) break;
        for (const account of involvedAccounts(event.message)) this.sendSlot(this.mempool.get(account), WITH_INVOLVED, ROUTE_MEMPOOL);
        break;
      case 'block': {
        const wc = event.block.workchain;
        for (const r of this.blocks) if (r.workchain === null || r.workchain === wc) this.send(r, PLAIN);
        break;
      }
    }
  }

  private matchTransaction(account: AccountId, opcode: number | null): void {
    const slot = this.transactions.size > 0 ? this.transactions.get(account) : undefined;
    if (slot !== undefined) {
      if (Array.isArray(slot)) {
        for (const r of slot) if (matchesOperation(r.ops, opcode)) this.send(r, PLAIN);
      } else if (matchesOperation(slot.ops, opcode)) this.send(slot, PLAIN);
    }
    if (this.allTransactions.size > 0) {
      for (const r of this.allTransactions) if (matchesOperation(r.ops, opcode)) this.send(r, PLAIN);
    }
  }

  private sendSlot(slot: Slot | undefined, variant: PayloadVariant, kind: number): void {
    if (slot === undefined) return;
    if (Array.isArray(slot)) for (const r of slot) this.sendIf(r, variant, kind);
    else this.sendIf(slot, variant, kind);
  }

  /** Sends when the route's operations filter passes on what the event itself records. */
  private sendIf(route: Route, variant: PayloadVariant, kind: number): void {
    if (route.ops !== null) {
      const event = this.event!;
      if (kind === ROUTE_TRACE && event.type === 'trace') {
        this.opcodes ??= traceOpcodes(event.trace);
      } else if (kind === ROUTE_MEMPOOL && event.type === 'mempool') {
        this.opcodes ??= pendingOpcodes(event.message);
      }
      if (this.opcodes !== null && !matchesAnyOperation(route.ops, this.opcodes)) return;
    }
    this.send(route, variant);
  }

  private prepare(event: ChainEvent): PreparedEvent {
    return this.prepared === null ? (this.prepared = new PreparedEvent(event)) : this.prepared.reset(event);
  }

  /** Lists a delivery (once per subscriber and event, after the route's start). */
  private send(route: Route, variant: PayloadVariant): void {
    const sub = route.subscriber;
    if (sub.stamp === this.serial || this.event!.position <= route.after) return;
    sub.stamp = this.serial;
    const i = this.count++;
    this.to[i] = sub;
    this.of[i] = this.eventIndex;
    this.as[i] = variant;
    sub.lastDelivery = i;
  }
}

const ROUTE_TRACE = 1;
const ROUTE_MEMPOOL = 2;
