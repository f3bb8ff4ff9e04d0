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
  /**
   * Queues the event's frame; the dispatcher flushes every subscriber it touched after the batch.
   * `event` is the dispatcher's, reused for the next event: keep the frames it builds, not it.
   */
  deliver(event: PreparedEvent, variant: PayloadVariant, touched: Subscriber[]): void;
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

  // State of the event being dispatched (fields, not closures: this loop runs for every event).
  private serial = 0;
  private event: ChainEvent | null = null;
  /** One PreparedEvent for every event dispatched (see PreparedEvent.reset); null until the first delivery. */
  private prepared: PreparedEvent | null = null;
  /** Whether `prepared` holds the event being dispatched. */
  private preparedCurrent = false;
  /** Opcodes of the trace or pending message being dispatched, read once (see opcodes.ts). */
  private opcodes: readonly number[] | null = null;
  private touched: Subscriber[] = [];

  /** Delivers each event to the subscribers whose routes match it, in order; adds them to `touched`. */
  dispatch(events: readonly ChainEvent[], touched: Subscriber[]): void {
    this.touched = touched;
    for (const event of events) {
      this.serial = ++serialCounter;
      this.event = event;
      this.preparedCurrent = false;
      switch (event.type) {
        case 'transaction':
          this.dispatchTransaction(event.tx.account, event.tx.inMessage?.opcode ?? null);
          break;
        case 'trace':
          this.opcodes = null;
          // a busy block completes hundreds of traces of a few accounts each: no lookups while nobody follows traces
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
    this.event = null;
    this.prepared?.release();
    this.preparedCurrent = false;
  }

  private dispatchTransaction(account: AccountId, opcode: number | null): void {
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

  private prepare(): PreparedEvent {
    if (this.preparedCurrent) return this.prepared!;
    this.preparedCurrent = true;
    return this.prepared === null ? (this.prepared = new PreparedEvent(this.event!)) : this.prepared.reset(this.event!);
  }

  private send(route: Route, variant: PayloadVariant): void {
    const sub = route.subscriber;
    if (sub.stamp === this.serial || this.event!.position <= route.after) return;
    sub.stamp = this.serial;
    sub.deliver(this.prepare(), variant, this.touched);
  }
}

const ROUTE_TRACE = 1;
const ROUTE_MEMPOOL = 2;
