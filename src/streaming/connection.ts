// A client connection of either transport, as the hub drives it: its routes (the subscriptions it
// holds), the index they sit in (the hub's live index, or its own while it replays history), the
// frames queued during one batch, and what the sweeper needs (last write, buffered bytes).
import type { Socket } from 'node:net';
import type { AccountId } from '../chain/model.js';
import type { ChainEventType, Position } from '../bus/events.js';
import type { PayloadVariant, PreparedEvent } from './frames.js';
import type { OperationFilter } from './operations.js';
import { Route, type AccountRoutes, type Subscriber, type SubscriptionIndex } from './subscriptions.js';

export type Transport = 'sse' | 'ws';

/** A batch of prebuilt frames as one write: cheaper than corking into a writev, which the fan-out pays per connection. */
export function writeBatch(socket: Socket, first: Buffer, more: Buffer[] | null): void {
  socket.write(more === null ? first : Buffer.concat([first, ...more]));
}

/** What a connection needs from the hub. */
export interface ConnectionHost {
  readonly bufferBytes: number;
  /** Counts a frame sent, by event type (flushed into the metrics once per batch). */
  countSent(type: ChainEventType): void;
  slowConsumer(connection: StreamConnection): void;
  closed(connection: StreamConnection): void;
}

type AccountKind = 'transactions' | 'traces' | 'mempool';

/** The subscriptions a connection holds; each account maps to one route (re-subscribing replaces it). */
class RouteSet {
  readonly transactions = new Map<AccountId, Route>();
  readonly traces = new Map<AccountId, Route>();
  readonly mempoolAccounts = new Map<AccountId, Route>();
  allTransactions: Route | null = null;
  allTraces: Route | null = null;
  /** Mempool without an accounts filter. */
  mempool: Route | null = null;
  blocks: Route | null = null;

  *routes(): Iterable<Route> {
    yield* this.transactions.values();
    yield* this.traces.values();
    yield* this.mempoolAccounts.values();
    for (const r of [this.allTransactions, this.allTraces, this.mempool, this.blocks]) if (r) yield r;
  }
}

export abstract class StreamConnection implements Subscriber {
  private static nextId = 1;
  readonly id = StreamConnection.nextId++;
  abstract readonly transport: Transport;
  stamp = 0;
  /** Position of the last event sent (resume rules), -1 before the first. */
  lastSent: Position = -1;
  lastWriteAt = Date.now();
  /** Sweeper's view of write progress: buffered bytes at the last sweep and when they last shrank. */
  lastBuffered = 0;
  lastProgressAt = Date.now();
  /** Index holding this connection's routes: the hub's, a replay's, or none once closed. */
  index: SubscriptionIndex | null = null;
  /** Set while history is being replayed to this connection (see replay.ts). */
  replay: { cursor: Position; generation: number; claimed: string } | null = null;
  closed = false;
  /** The final event is written; no more frames. */
  closing = false;

  protected readonly routes = new RouteSet();
  /** Frames queued during a batch: most connections get one, so an array only from the second on. */
  private pending: Buffer | null = null;
  private pendingMore: Buffer[] | null = null;

  constructor(protected readonly host: ConnectionHost) {}

  /** The frame of `event` in this transport's form. */
  protected abstract frame(event: PreparedEvent, variant: PayloadVariant): Buffer;
  /** Writes a batch's frames (`first`, then `more` when there are several) in one go. */
  protected abstract writeFrames(first: Buffer, more: Buffer[] | null): void;
  /** Bytes accepted but not yet handed to the kernel. */
  abstract bufferedBytes(): number;
  /** Heartbeat (SSE) or ping (WebSocket) after silence. */
  abstract heartbeat(): void;
  /** Writes the transport's "slow consumer" final event and closes. */
  protected abstract closeAsSlow(): void;
  /** Closes at once (dead peer, server shutdown). */
  abstract terminate(reason: 'dead' | 'shutdown'): void;
  /** Whether the peer stopped answering (WebSocket pings); SSE has no way to tell. */
  unresponsive(_now: number): boolean {
    return false;
  }
  /** Writes a gap notice: history after `lastEventId` is gone, the first retained id is `firstAvailable`. */
  abstract writeGap(lastEventId: Position | string, firstAvailable: Position): void;

  deliver(event: PreparedEvent, variant: PayloadVariant, touched: Subscriber[]): void {
    if (this.closing) return;
    const frame = this.frame(event, variant);
    if (this.pending === null) {
      touched.push(this);
      this.pending = frame;
    } else (this.pendingMore ??= []).push(frame);
    this.lastSent = event.position;
    this.host.countSent(event.event.type);
  }

  /**
   * Writes the frames queued during a batch. A connection still holding more than the buffer limit
   * from earlier batches is a slow consumer: it is closed instead (memory stays within the limit plus
   * one batch). A burst larger than the limit is fine when the client drains it before the next one.
   * `paced` writers (replays) wait for drain themselves. `now`: the caller's clock, read once per batch.
   */
  flush(paced = false, now = Date.now()): void {
    const first = this.pending;
    if (first === null) return;
    const more = this.pendingMore;
    this.pending = null;
    this.pendingMore = null;
    if (this.closing || this.closed) return;
    if (!paced && this.bufferedBytes() > this.host.bufferBytes) {
      this.host.slowConsumer(this);
      return;
    }
    this.writeFrames(first, more);
    this.lastWriteAt = now;
  }

  /** Called by the hub once: writes the final event and closes. */
  closeSlow(): void {
    if (this.closing || this.closed) return;
    this.closing = true;
    this.pending = null;
    this.pendingMore = null;
    this.closeAsSlow();
  }

  /** Moves every route to `index` (null: out of every index). */
  moveTo(index: SubscriptionIndex | null): void {
    if (this.index === index) return;
    if (this.index) this.detachFrom(this.index);
    this.index = index;
    if (index) this.attachTo(index);
  }

  /** The transport closed: leave the index, stop replaying. */
  onClosed(): void {
    if (this.closed) return;
    this.closed = true;
    this.moveTo(null);
    this.replay = null;
    this.pending = null;
    this.pendingMore = null;
    this.host.closed(this);
  }

  /** Lowers every route's start to `position` at most: a resume point that was not ours starts live. */
  restartAt(position: Position): void {
    for (const r of this.routes.routes()) if (r.after > position) r.after = position;
  }

  /** Raises every route's start to `position`: events up to it were already considered for them. */
  markConsidered(position: Position): void {
    for (const r of this.routes.routes()) if (r.after < position) r.after = position;
  }

  // ---- subscriptions (used by the transports) ----

  protected newRoute(ops: OperationFilter, after: Position, workchain: number | null = null): Route {
    return new Route(this, ops, after, workchain);
  }

  /** Subscribes accounts (replacing their previous route); returns how many were not subscribed before. */
  protected addAccounts(kind: AccountKind, accounts: Iterable<AccountId>, route: Route): number {
    const own = this.ownMap(kind);
    let created = 0;
    for (const account of accounts) {
      const previous = own.get(account);
      if (previous) this.unindex(kind, account, previous);
      else created++;
      own.set(account, route);
      this.index?.[kind].add(account, route);
    }
    return created;
  }

  /** Unsubscribes accounts; returns how many were subscribed. */
  protected removeAccounts(kind: AccountKind, accounts: Iterable<AccountId>): number {
    const own = this.ownMap(kind);
    let removed = 0;
    for (const account of accounts) {
      const route = own.get(account);
      if (!route) continue;
      this.unindex(kind, account, route);
      own.delete(account);
      removed++;
    }
    return removed;
  }

  protected accountCount(kind: AccountKind): number {
    return this.ownMap(kind).size;
  }

  protected hasAccount(kind: AccountKind, account: AccountId): boolean {
    return this.ownMap(kind).has(account);
  }

  protected setAll(kind: 'transactions' | 'traces', route: Route): void {
    const set = kind === 'transactions' ? this.index?.allTransactions : this.index?.allTraces;
    const previous = kind === 'transactions' ? this.routes.allTransactions : this.routes.allTraces;
    if (previous) set?.delete(previous);
    if (kind === 'transactions') this.routes.allTransactions = route;
    else this.routes.allTraces = route;
    set?.add(route);
  }

  /** Mempool without an accounts filter (null removes it). */
  protected setMempool(route: Route | null): void {
    if (this.routes.mempool) this.index?.allMempool.delete(this.routes.mempool);
    this.routes.mempool = route;
    if (route) this.index?.allMempool.add(route);
  }

  protected hasMempool(): boolean {
    return this.routes.mempool !== null || this.routes.mempoolAccounts.size > 0;
  }

  protected clearMempool(): void {
    this.setMempool(null);
    this.removeAccounts('mempool', [...this.routes.mempoolAccounts.keys()]);
  }

  protected setBlocks(route: Route | null): void {
    if (this.routes.blocks) this.index?.blocks.delete(this.routes.blocks);
    this.routes.blocks = route;
    if (route) this.index?.blocks.add(route);
  }

  protected hasBlocks(): boolean {
    return this.routes.blocks !== null;
  }

  private ownMap(kind: AccountKind): Map<AccountId, Route> {
    return kind === 'transactions' ? this.routes.transactions : kind === 'traces' ? this.routes.traces : this.routes.mempoolAccounts;
  }

  private unindex(kind: AccountKind, account: AccountId, route: Route): void {
    this.index?.[kind].remove(account, route);
  }

  private attachTo(index: SubscriptionIndex): void {
    const r = this.routes;
    for (const [account, route] of r.transactions) index.transactions.add(account, route);
    for (const [account, route] of r.traces) index.traces.add(account, route);
    for (const [account, route] of r.mempoolAccounts) index.mempool.add(account, route);
    if (r.allTransactions) index.allTransactions.add(r.allTransactions);
    if (r.allTraces) index.allTraces.add(r.allTraces);
    if (r.mempool) index.allMempool.add(r.mempool);
    if (r.blocks) index.blocks.add(r.blocks);
  }

  private detachFrom(index: SubscriptionIndex): void {
    const r = this.routes;
    const drop = (routes: AccountRoutes, own: Map<AccountId, Route>) => {
      for (const [account, route] of own) routes.remove(account, route);
    };
    drop(index.transactions, r.transactions);
    drop(index.traces, r.traces);
    drop(index.mempool, r.mempoolAccounts);
    if (r.allTransactions) index.allTransactions.delete(r.allTransactions);
    if (r.allTraces) index.allTraces.delete(r.allTraces);
    if (r.mempool) index.allMempool.delete(r.mempool);
    if (r.blocks) index.blocks.delete(r.blocks);
  }
}
