// The v2 hub: follows the durable log (finalized transactions, grouped by trace) and the finality
// tracker (pending, confirmed, invalidated), filters each notification per subscription and writes it.
// Resume (beyond the anchors): finalized notifications replayed from the log after the client's id, then
// the in-flight provisional traces at their current level and the invalidations it may have missed; a
// `gap` notification when the log no longer holds what it asks for. As in the legacy hub (../hub.ts), a
// replaying connection joins the live fan-out in the same tick as it sees the log's head. Finalized `trace`
// and `actions` cover a whole trace, sent in the block that completes it (traces.ts).
import type { Logger } from 'pino';
import { makePosition, positionSeqno, type EventBatch } from '../../bus/events.js';
import type { EventLog } from '../../bus/types.js';
import type { AccountId, HashHex, TransactionModel } from '../../chain/model.js';
import type { FinalityTracker } from '../../pipeline/finality/tracker.js';
import type { ConfirmedEvent, ProvisionalEvent } from '../../pipeline/finality/types.js';
import { actionVisible, expandActionTypes, noContractFacts, pickAddressBook, pickMetadata, traceContent, transactionAddresses, v3Address, v3Transaction, type GetMethodRunner, type TraceContent, type TraceContext, type V3AddressBook, type V3Metadata } from './v3/index.js';
import { provisionalActions, provisionalContent, provisionalTransactions, type LiveEvent } from './provisional.js';
import type { V2Enricher } from './enrich.js';
import type { StateNotice, V2StateReader } from './states.js';
import type { V2Connection } from './connection.js';
import { V2Index } from './index-map.js';
import { sharedForAddresses } from './shared.js';
import { LAST_KIND, TraceNorms, after, cursorId, groupBatch, type FinalizedGroup, type V2Cursor } from './notices.js';
import { FINALITY_RANK, type V2Subscription } from './request.js';
import { TraceAssembler, type Completion } from './traces.js';

/** The documented keepalive period (docs.ton.org, Streaming API: SSE). */
export const V2_KEEPALIVE_MS = 15_000;
/** Invalidations remembered for resuming clients. */
const INVALIDATION_RING = 10_000;

export interface V2HubOptions {
  log: EventLog;
  finality: FinalityTracker | null;
  logger: Logger;
  bufferBytes: number;
  writeTimeoutMs: number;
  keepaliveMs?: number;
  replayPageSize?: number;
  /** Builds `address_book`/`metadata` for subscriptions that include them (null: the flags add nothing). */
  enricher?: V2Enricher | null;
  /** Reads account and jetton wallet states for `account_state_change`/`jettons_change` (null: never sent). */
  states?: V2StateReader | null;
  /** Runs get-methods (bounded in time) that prove jetton wallets and NFT items for `actions` (null: none proven). */
  facts?: GetMethodRunner | null;
  /** Masterchain blocks a trace may span and still get its `trace`/`actions` notifications (traces.ts). */
  traceWindowBlocks?: number;
  /** Counts each completed trace's outcome (metrics). */
  onTraceBuilt?: (result: 'classified' | 'unclassified' | 'not_assembled') => void;
}

interface Invalidation {
  seq: number;
  norm: HashHex;
  accounts: AccountId[];
}

export class V2Hub {
  readonly connections = new Set<V2Connection>();
  private readonly index = new V2Index();
  /** Connections told about each provisional trace: a later invalidation is their business. */
  private readonly told = new Map<HashHex, Set<V2Connection>>();
  private readonly norms = new TraceNorms();
  private readonly assembler: TraceAssembler;
  /** Live batches held while the start reads the window before the head back (null: none held). */
  private held: EventBatch[] | null = null;
  /** The first masterchain block whose trace norms this process has seen (re-read before it on a resume). */
  private observedFrom = Infinity;
  /** Live batches went by with no v2 client, ungrouped: the next client's open reads the window back. */
  private idle = false;
  /** Accounts of each provisional trace (its emulated trace, or its first transaction). */
  private readonly traceAccounts = new Map<HashHex, AccountId[]>();
  /** The confirmed transactions of each trace already sent live (a grown `confirmed` sends states for the new ones only). */
  private readonly confirmedTxs = new Map<HashHex, Set<HashHex>>();
  /** A grown `confirmed` event's transactions not in the trace's earlier one. */
  private readonly newlyConfirmed = new WeakMap<ConfirmedEvent, TransactionModel[]>();
  private readonly invalidations: Invalidation[] = [];
  private provisionalSeq = 0;
  private stops: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  readonly keepaliveMs: number;

  constructor(private readonly options: V2HubOptions) {
    this.keepaliveMs = options.keepaliveMs ?? V2_KEEPALIVE_MS;
    this.assembler = new TraceAssembler({ log: options.log, facts: options.facts ?? null, windowBlocks: options.traceWindowBlocks, onBuilt: options.onTraceBuilt });
  }

  /** Transactions the trace assembler holds (for metrics). */
  get assembling(): number {
    return this.assembler.size;
  }

  start(): void {
    if (this.timer) return;
    this.stops.push(this.options.log.subscribe((batch) => (this.held ? this.held.push(batch) : this.publishBatch(batch))));
    // traces that started before this process: the window before the head is read back first
    this.catchUp();
    if (this.options.finality) this.stops.push(this.options.finality.subscribe((e) => this.publishProvisional(e)));
    this.timer = setInterval(() => this.sweep(), Math.min(500, this.keepaliveMs));
    this.timer.unref();
  }

  stop(): void {
    for (const s of this.stops.splice(0)) s();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const c of [...this.connections]) c.terminate();
  }

  /** Registers a connection (subscribed already for SSE, later for WebSocket): live from now, or resumed after `resume`. */
  open(connection: V2Connection, subscription: V2Subscription | null, resume: V2Cursor | null): void {
    // the first client after blocks nobody was told of: their window is read back, as at start
    if (this.idle && this.held === null && this.timer) this.catchUp();
    this.connections.add(connection);
    this.subscribe(connection, subscription, resume);
  }

  /** A (new) subscription replaces the connection's whole one; a resume point restarts its replay. */
  subscribe(connection: V2Connection, subscription: V2Subscription | null, resume: V2Cursor | null): void {
    this.index.set(connection, subscription);
    if (resume === null) {
      if (!connection.replaying) connection.cursor = { position: this.options.log.headPosition() ?? -1, kind: LAST_KIND, provisional: this.provisionalSeq };
      return;
    }
    const seen = resume.provisional ?? this.provisionalSeq;
    connection.cursor = { position: resume.position, kind: resume.kind, provisional: Math.min(seen, this.provisionalSeq) };
    if (connection.replaying) return; // the running replay reads from the new cursor
    connection.replaying = true;
    void this.replay(connection).catch((err) => {
      this.options.logger.error({ err }, 'v2 stream replay failed; closing the connection');
      connection.terminate();
    });
  }

  /** The id a client resumes from if it sees nothing more: where its subscription starts. */
  startId(connection: V2Connection): string {
    return `${cursorId(connection.cursor)}~${connection.cursor.provisional ?? this.provisionalSeq}`;
  }

  /** WS `unsubscribe`: addresses and traces leave the connection's subscription. */
  unsubscribe(connection: V2Connection, addresses: AccountId[], traces: string[]): void {
    this.index.drop(connection, addresses, traces);
  }

  closed(connection: V2Connection): void {
    connection.closed = true;
    this.connections.delete(connection);
    this.index.remove(connection);
  }

  /** Holds live batches while the window before the head is read back, then publishes them in order. */
  private catchUp(): void {
    this.idle = false;
    this.held = [];
    void this.seed()
      .catch((err) => this.options.logger.warn({ err }, 'v2 stream: reading the trace window back failed'))
      .finally(() => {
        const held = this.held ?? [];
        this.held = null;
        for (const b of held) this.publishBatch(b);
      });
  }

  /** Reads the window before the head back: trace norms and transactions of traces still in flight. */
  private async seed(): Promise<void> {
    const head = this.options.log.headPosition();
    if (head === null) return;
    await this.readBack(head, (b) => this.assembler.observe(b));
  }

  /** Groups (for their norms) the batches of the trace window that ends at `until`, handing each to `also`. */
  private async readBack(until: number, also?: (b: EventBatch) => void): Promise<void> {
    const from = Math.max(0, positionSeqno(until) - this.assembler.windowBlocks);
    let after = makePosition(from, 0) - 1;
    this.observedFrom = Math.min(this.observedFrom, from);
    while (after < until) {
      const batches = await this.options.log.readAfter(after, 32);
      if (batches.length === 0) return;
      for (const b of batches) {
        if (b.firstPosition > until) return;
        groupBatch(b, this.norms);
        also?.(b);
        after = Math.max(after, b.lastPosition);
      }
    }
  }

  private async replay(connection: V2Connection): Promise<void> {
    const log = this.options.log;
    // a cursor older than what this process saw: the norms of traces that started before it are read back
    if (positionSeqno(connection.cursor.position) - this.assembler.windowBlocks < this.observedFrom) await this.readBack(connection.cursor.position);
    for (;;) {
      if (connection.closed) return;
      const oldest = await log.oldestPosition();
      const cursor = connection.cursor;
      if (oldest !== null && cursor.position < oldest - 1) {
        // Never a silent hole: name what is gone, then continue from the oldest retained batch.
        this.queue(connection, `${oldest - 1}.${LAST_KIND}`, JSON.stringify({ type: 'gap', last_event_id: cursorId(cursor), first_available: `${oldest}.0` }));
        connection.cursor = { ...cursor, position: oldest - 1, kind: LAST_KIND };
      }
      const head = log.headPosition();
      if (head === null || connection.cursor.position >= head) {
        // Caught up: live from this tick on, then what happened to provisional traces meanwhile.
        connection.replaying = false;
        this.resendProvisional(connection);
        return;
      }
      // a cursor inside a group (its `trace` notification not yet seen) re-reads that group's batch
      const from = connection.cursor.kind === LAST_KIND ? connection.cursor.position : connection.cursor.position - 1;
      const batches = await log.readAfter(from, this.options.replayPageSize ?? 32);
      if (connection.closed) return;
      for (const batch of batches) {
        if (connection.closed) return;
        if (batch.lastPosition <= connection.cursor.position && connection.cursor.kind === LAST_KIND) continue;
        this.deliverBatch(connection, batch, groupBatch(batch, this.norms));
        // paced by the client's reading: a catch-up is never mistaken for a slow consumer
        if (connection.bufferedBytes() > this.options.bufferBytes / 2) await this.drained(connection);
        if (connection.tail) await connection.tail; // notifications waiting for their address book count too
      }
    }
  }

  private drained(connection: V2Connection): Promise<void> {
    return new Promise((resolve) => {
      const timer = setInterval(() => {
        if (connection.closed || connection.bufferedBytes() <= this.options.bufferBytes / 4) {
          clearInterval(timer);
          resolve();
        }
      }, 5);
      timer.unref();
    });
  }

  /** Live: one batch, grouped once, to every connection that is not replaying. */
  private publishBatch(batch: EventBatch): void {
    if (this.connections.size === 0) {
      // nobody to tell: no grouping and no window on this hot path; the next client reads the window back
      this.idle = true;
      this.observedFrom = Infinity;
      return;
    }
    const groups = groupBatch(batch, this.norms);
    this.assembler.observe(batch);
    this.observedFrom = Math.min(this.observedFrom, batch.mcSeqno);
    // the groups each connection follows, found through the index, in log order
    const touched = new Map<V2Connection, FinalizedGroup[]>();
    for (const g of groups) {
      const seen = new Set<V2Connection>();
      const note = (c: V2Connection) => {
        if (seen.has(c) || c.replaying || c.closed) return;
        seen.add(c);
        const list = touched.get(c);
        if (list) list.push(g);
        else touched.set(c, [g]);
      };
      for (const a of g.accounts) this.index.ofAccount(a)?.forEach(note);
      if (this.index.hasTraces() && g.norm) this.index.ofTrace(g.norm)?.forEach(note);
      // a wallet's owner is known only once get_wallet_data answers: its subscribers wait in line for it
      if (this.options.states && g.txs.some((tx) => this.options.states!.jettonCandidate(tx))) for (const c of this.connections) if (c.subscription?.types.has('jettons_change')) note(c);
    }
    // completed traces: whom their actions concern is known once classified, so every candidate waits in line
    if (batch.events.some((e) => e.type === 'trace')) {
      for (const c of this.connections) if (!c.replaying && !c.closed && !touched.has(c) && wantsCompletions(c)) touched.set(c, []);
    }
    for (const [c, mine] of touched) this.deliverBatch(c, batch, mine);
    for (const c of this.connections) if (!c.replaying) advance(c, batch);
  }

  private deliverBatch(c: V2Connection, batch: EventBatch, groups: FinalizedGroup[]): void {
    c.cork();
    try {
      this.deliverGroups(c, groups);
      this.deliverCompletions(c, batch);
    } finally {
      c.uncork();
    }
    advance(c, batch);
  }

  private deliverGroups(c: V2Connection, groups: FinalizedGroup[]): void {
    const sub = c.subscription;
    for (const g of sub ? groups : []) {
      if (sub!.types.has('transactions') && after({ position: g.position, kind: 0 }, c.cursor)) {
        // one text per group and subset of its transactions, shared by the connections that match it
        const payload = sharedForAddresses(g, sub!.addresses, finalizedTransactions);
        if (payload !== null) {
          const mentions = () => groupContent(g).transactions.filter((t) => sub!.addresses.has(t.account.toLowerCase())).flatMap(transactionAddresses);
          this.emit(c, `${g.position}.0`, payload, g, () => groupContent(g).addresses, mentions);
        }
      }
      this.sendStates(c, g.txs, 'finalized', (kind) => (after({ position: g.position, kind }, c.cursor) ? `${g.position}.${kind}` : null));
    }
  }

  /**
   * The batch's completed traces (its `trace` events): `trace` (kind 1) to subscribers of the trace's norm
   * and `actions` (kind 2) to subscribers of an account an action names, each at the event's position,
   * queued in the connection's order behind the trace's assembly and contract facts.
   */
  private deliverCompletions(c: V2Connection, batch: EventBatch): void {
    const sub = c.subscription;
    if (!sub || !wantsCompletions(c)) return;
    const due: Array<{ done: Promise<Completion | null>; trace: boolean; actions: boolean }> = [];
    for (const e of batch.events) {
      if (e.type !== 'trace') continue;
      const trace = sub.types.has('trace') && after({ position: e.position, kind: 1 }, c.cursor);
      const actions = sub.types.has('actions') && after({ position: e.position, kind: 2 }, c.cursor);
      if (trace || actions) due.push({ done: this.assembler.complete(e), trace, actions });
    }
    if (due.length === 0) return;
    // one step per batch: every completion of the block is being built already, in parallel
    this.after(c, async () => {
      const filter = { actionTypes: new Set(sub.actionTypes), supported: expandActionTypes(sub.supportedActionTypes) };
      for (const d of due) {
        const t = await d.done;
        if (!t) continue;
        const visible = t.content.actions.filter((a) => actionVisible(a, filter));
        if (d.trace && t.norm && sub.traces.has(t.norm)) {
          // Go's TraceNotification carries the classified actions, filtered by type only (ton-streaming-go/v2)
          const payload = `${traceJson(t)}${visible.length > 0 ? `,"actions":${JSON.stringify(visible)}` : ''}}`;
          this.write(c, `${t.position}.1`, (await this.enriched(c, payload, t, () => t.content.addresses, () => t.content.addresses.map(v3Address))) ?? payload);
        }
        const mine = d.actions ? visible.filter((a) => (a.accounts ?? []).some((acc) => sub.addresses.has(acc.toLowerCase()))) : [];
        if (mine.length > 0) {
          const payload = JSON.stringify({ type: 'actions', finality: 'finalized', trace_external_hash_norm: t.norm ? b64(t.norm) : null, actions: mine });
          this.write(c, `${t.position}.2`, (await this.enriched(c, payload, t, () => t.content.addresses, () => mine.flatMap((a) => a.accounts ?? []))) ?? payload);
        }
      }
    });
  }

  private publishProvisional(event: ProvisionalEvent): void {
    const norm = event.trace;
    if (event.finality !== 'confirmed') this.confirmedTxs.delete(norm);
    if (event.finality === 'finalized') {
      this.traceAccounts.delete(norm);
      this.told.delete(norm);
      return; // the finalized transactions come from the log, in order and durable
    }
    this.provisionalSeq++;
    if (event.finality === 'invalidated') {
      const accounts = this.traceAccounts.get(norm) ?? [event.account];
      this.traceAccounts.delete(norm);
      this.invalidations.push({ seq: this.provisionalSeq, norm, accounts });
      if (this.invalidations.length > INVALIDATION_RING) this.invalidations.shift();
      const told = this.told.get(norm);
      this.told.delete(norm);
      for (const c of this.following(norm, accounts, told)) if (!c.replaying) this.sendInvalidated(c, norm, accounts, told?.has(c) ?? false, false);
      return;
    }
    const accounts = new Set(this.traceAccounts.get(norm) ?? []);
    accounts.add(event.account);
    if (event.finality === 'pending') for (const a of event.involvedAccounts ?? []) accounts.add(a);
    for (const tx of event.transactions) accounts.add(tx.account);
    if (event.finality === 'confirmed') {
      for (const tx of event.emulated?.transactions ?? []) accounts.add(tx.account);
      let seen = this.confirmedTxs.get(norm);
      if (!seen) this.confirmedTxs.set(norm, (seen = new Set()));
      this.newlyConfirmed.set(event, event.transactions.filter((tx) => !seen!.has(tx.hash)));
      for (const tx of event.transactions) seen.add(tx.hash);
    }
    this.traceAccounts.set(norm, [...accounts]);
    for (const c of this.following(norm, [...accounts])) if (!c.replaying) this.sendProvisional(c, event);
  }

  /** Connections that follow the trace or any of the accounts (and those in `also`). */
  private following(norm: HashHex, accounts: AccountId[], also?: Set<V2Connection>): Set<V2Connection> {
    const out = new Set<V2Connection>(also);
    this.index.ofTrace(norm)?.forEach((c) => out.add(c));
    for (const a of accounts) this.index.ofAccount(a)?.forEach((c) => out.add(c));
    return out;
  }

  private provisionalId(c: V2Connection): string {
    return `${cursorId(c.cursor)}~${this.provisionalSeq}`;
  }

  /**
   * A pending or confirmed trace to one connection (src/streaming/v2/provisional.ts builds the contents once
   * per event): `transactions` of its addresses, `trace` with tree and map, `actions` of a whole trace (in
   * the connection's order, behind their contract facts), and at confirmed the states its transactions left.
   */
  private sendProvisional(c: V2Connection, event: ProvisionalEvent, resumed = false): void {
    const sub = c.subscription;
    if (!sub || event.finality === 'finalized' || event.finality === 'invalidated') return;
    if (FINALITY_RANK[event.finality] < FINALITY_RANK[sub.minFinality]) return;
    const accounts = this.traceAccounts.get(event.trace) ?? [event.account];
    const content = provisionalContent(event);
    const norm = JSON.stringify(b64(event.trace));
    let sent = false;
    if (sub.types.has('transactions') && accounts.some((a) => sub.addresses.has(a))) {
      const mine = provisionalTransactions(event, sub.addresses);
      // a trace the source could not emulate still tells its subscribers it is on its way
      if (mine.length > 0 || content.json.size === 0) {
        const list = mine.map((tx) => content.json.get(tx)!).join(',');
        const payload = `{"type":"transactions","finality":"${event.finality}","trace_external_hash_norm":${norm},"transactions":[${list}]}`;
        const mentions = () => mine.flatMap((tx) => transactionAddresses(content.v3.get(tx)!));
        this.emit(c, this.provisionalId(c), payload, event, () => (content.addresses.length > 0 ? content.addresses : accounts), mentions);
        sent = true;
      }
    }
    const wantsTrace = sub.types.has('trace') && sub.traces.has(event.trace);
    const wantsActions = sub.types.has('actions') && accounts.some((a) => sub.addresses.has(a));
    if (wantsTrace || wantsActions) {
      this.provisionalActions(c, event, wantsTrace, wantsActions);
      sent = true;
    }
    // live, a grown trace's new transactions only; a resuming client gets the trace's all
    if (event.finality === 'confirmed') this.sendStates(c, (!resumed && this.newlyConfirmed.get(event)) || event.transactions, 'confirmed', () => this.provisionalId(c));
    if (sent) {
      let told = this.told.get(event.trace);
      if (!told) this.told.set(event.trace, (told = new Set()));
      told.add(c);
    }
  }

  /** `trace` (with `actions` when classified) and `actions`, written in the connection's order once the actions are built. */
  private provisionalActions(c: V2Connection, event: LiveEvent, trace: boolean, actions: boolean): void {
    const content = provisionalContent(event);
    const norm = b64(event.trace);
    const id = this.provisionalId(c);
    const built = provisionalActions(event, this.options.facts ?? null);
    this.after(c, async () => {
      const all = await built;
      const sub = c.subscription;
      if (!sub || c.closed) return;
      // the actions name accounts beyond the transactions' (a jetton's master): the book covers them, built once per actions list
      const addresses = all ? [...new Set([...content.addresses, ...all.flatMap((a) => (a.accounts ?? []).map((acc) => acc.toLowerCase()))])] : content.addresses;
      const key = all ?? event;
      if (trace) {
        const body: Record<string, unknown> = { type: 'trace', finality: event.finality, trace_external_hash_norm: norm, trace: content.trace, transactions: content.transactionMap };
        if (all) body.actions = all;
        await this.writeEnriched(c, id, JSON.stringify(body), key, addresses, addresses.map(v3Address));
      }
      if (actions && all) {
        const filter = { actionTypes: new Set(sub.actionTypes), supported: expandActionTypes(sub.supportedActionTypes) };
        const mine = all.filter((a) => actionVisible(a, filter) && (a.accounts ?? []).some((acc) => sub.addresses.has(acc.toLowerCase())));
        if (mine.length === 0) return;
        const payload = JSON.stringify({ type: 'actions', finality: event.finality, trace_external_hash_norm: norm, actions: mine });
        await this.writeEnriched(c, id, payload, key, addresses, mine.flatMap((a) => a.accounts ?? []));
      }
    });
  }

  /** Inside a queued step: the payload with the connection's `address_book`/`metadata` (built once per event), written now. */
  private async writeEnriched(c: V2Connection, id: string, payload: string, event: object, accounts: readonly AccountId[], mentions: Iterable<string>): Promise<void> {
    const sub = c.subscription;
    const enricher = this.options.enricher;
    const book = !!(enricher && sub?.includeAddressBook);
    const meta = !!(enricher && sub?.includeMetadata);
    let text = payload;
    if (book || meta) {
      const [b, m] = await this.enrichment(event, () => accounts, book, meta);
      const mentioned = [...new Set(mentions)];
      if (b) text = `${text.slice(0, -1)},"address_book":${JSON.stringify(pickAddressBook(b, mentioned))}}`;
      if (m) text = `${text.slice(0, -1)},"metadata":${JSON.stringify(pickMetadata(m, mentioned))}}`;
    }
    this.write(c, id, text);
  }

  /** To a client that was told about the trace, or that asked for `trace_invalidated` on its accounts. */
  private sendInvalidated(c: V2Connection, norm: HashHex, accounts: AccountId[], told: boolean, resumed: boolean): void {
    const sub = c.subscription;
    const asked = sub?.types.has('trace_invalidated') && (sub.traces.has(norm) || accounts.some((a) => sub.addresses.has(a)));
    const interested = sub && FINALITY_RANK[sub.minFinality] < FINALITY_RANK.finalized && (sub.types.has('transactions') || sub.types.has('trace')) && (accounts.some((a) => sub.addresses.has(a)) || sub.traces.has(norm));
    if (told || asked || (resumed && interested)) this.queue(c, this.provisionalId(c), JSON.stringify({ type: 'trace_invalidated', trace_external_hash_norm: b64(norm) }));
  }

  /** After a resume: invalidations it missed (or gap), then every trace in flight at its current level. */
  private resendProvisional(c: V2Connection): void {
    const seen = c.cursor.provisional ?? this.provisionalSeq;
    const oldest = this.invalidations[0]?.seq ?? this.provisionalSeq + 1;
    if (seen + 1 < oldest && this.invalidations.length >= INVALIDATION_RING) {
      this.queue(c, this.provisionalId(c), JSON.stringify({ type: 'gap', provisional: true, last_event_id: `${cursorId(c.cursor)}~${seen}` }));
    }
    for (const inv of this.invalidations) if (inv.seq > seen) this.sendInvalidated(c, inv.norm, inv.accounts, false, true);
    for (const event of this.options.finality?.inFlight() ?? []) this.sendProvisional(c, event, true);
  }

  /**
   * `account_state_change` (kind 3: each account's last transaction here) and `jettons_change` (kind 4: each
   * transaction of a proven jetton wallet, states.ts), to a subscriber of the account (the wallet or its owner for jettons).
   * `idOf` names the id, or null when the client has seen that kind already.
   */
  private sendStates(c: V2Connection, txs: readonly TransactionModel[], finality: 'confirmed' | 'finalized', idOf: (kind: number) => string | null): void {
    const sub = c.subscription;
    const states = this.options.states;
    if (!sub || !states) return;
    const later = (id: string | null, notice: Promise<StateNotice | null>) => {
      if (id === null) return;
      this.after(c, async () => {
        const n = await notice;
        if (!n || !n.accounts.some((a) => c.subscription?.addresses.has(a))) return;
        // jettons_change carries the address book and metadata of its wallet, owner and master (Go's order: last)
        const text = n.mentions ? this.enriched(c, n.payload, n, () => n.mentions!, () => n.mentions!.map(v3Address)) : null;
        this.write(c, id, text ? await text : n.payload);
      });
    };
    if (sub.types.has('account_state_change')) {
      const last = new Map<AccountId, TransactionModel>();
      for (const tx of txs) {
        const seen = last.get(tx.account);
        if (sub.addresses.has(tx.account) && (!seen || seen.lt < tx.lt)) last.set(tx.account, tx);
      }
      for (const tx of last.values()) later(idOf(3), states.accountState(tx, finality));
    }
    if (sub.types.has('jettons_change')) for (const tx of txs) if (states.jettonCandidate(tx, sub.addresses.has(tx.account))) later(idOf(4), states.jettonWallet(tx, finality));
  }

  /**
   * A notification that may carry `address_book`/`metadata` (Go's order: after the payload's own fields).
   * Their parts are built once per event (`event` keys the cache) over `accounts`, then picked per client
   * over `mentions`; every write to the connection waits behind the ones queued before it.
   */
  private emit(c: V2Connection, id: string, payload: string, event: object, accounts: () => readonly AccountId[], mentions: () => Iterable<string>): void {
    const text = this.enriched(c, payload, event, accounts, mentions);
    if (text === null) return this.queue(c, id, payload);
    this.after(c, async () => this.write(c, id, await text));
  }

  /** The payload with the `address_book`/`metadata` the connection asks for; null when it asks for neither. */
  private enriched(c: V2Connection, payload: string, event: object, accounts: () => readonly AccountId[], mentions: () => Iterable<string>): Promise<string> | null {
    const sub = c.subscription;
    const enricher = this.options.enricher;
    const book = !!(enricher && sub?.includeAddressBook);
    const meta = !!(enricher && sub?.includeMetadata);
    if (!book && !meta) return null;
    return this.enrichment(event, accounts, book, meta).then(([b, m]) => {
      const mentioned = [...new Set(mentions())];
      let text = payload;
      if (b) text = `${text.slice(0, -1)},"address_book":${JSON.stringify(pickAddressBook(b, mentioned))}}`;
      if (m) text = `${text.slice(0, -1)},"metadata":${JSON.stringify(pickMetadata(m, mentioned))}}`;
      return text;
    });
  }

  /** A write in the connection's order: now, or behind the enriched notifications still being built. */
  private queue(c: V2Connection, id: string, payload: string): void {
    if (!c.tail) this.write(c, id, payload);
    else this.after(c, async () => this.write(c, id, payload));
  }

  private after(c: V2Connection, step: () => Promise<void>): void {
    // never rejects: one failed write must not stop the ones queued behind it
    const next: Promise<void> = (c.tail ?? Promise.resolve())
      .then(step)
      .catch((err) => this.options.logger.error({ err }, 'v2 stream: enriched write failed'))
      .finally(() => {
        if (c.tail === next) c.tail = null;
      });
    c.tail = next;
  }

  /** The event's address book and metadata, each built at most once per event (a WeakMap on the event object). */
  private enrichment(event: object, accounts: () => readonly AccountId[], book: boolean, meta: boolean): Promise<[V3AddressBook | null, V3Metadata | null]> {
    let cached = enrichments.get(event);
    if (!cached) enrichments.set(event, (cached = {}));
    const enricher = this.options.enricher!;
    if (book && !cached.book) cached.book = enricher.build(accounts(), true, false).then((e) => e.book);
    if (meta && !cached.meta) cached.meta = enricher.build(accounts(), false, true).then((e) => e.metadata);
    return Promise.all([book ? cached.book! : null, meta ? cached.meta! : null]);
  }

  /** `payload` is the notification's JSON object text. */
  private write(c: V2Connection, id: string, payload: string): void {
    if (c.closed) return;
    if (!c.replaying && c.bufferedBytes() > this.options.bufferBytes) {
      this.options.logger.warn({ transport: c.transport }, 'v2 stream: slow consumer closed');
      c.closeSlow();
      return;
    }
    c.send(id, payload);
    c.lastWriteAt = Date.now();
  }

  /** Keepalives after silence; peers that stopped reading are dropped. */
  private sweep(): void {
    const now = Date.now();
    for (const c of this.connections) {
      const buffered = c.bufferedBytes();
      if (buffered === 0 || buffered < c.lastBuffered) c.lastProgressAt = now;
      c.lastBuffered = buffered;
      if (buffered > 0 && now - c.lastProgressAt > this.options.writeTimeoutMs) {
        c.terminate();
        continue;
      }
      if (now - c.lastWriteAt >= this.keepaliveMs) {
        c.keepalive();
        c.lastWriteAt = now;
      }
    }
  }
}

const enrichments = new WeakMap<object, { book?: Promise<V3AddressBook>; meta?: Promise<V3Metadata> }>();

const b64 = (hex: HashHex): string => Buffer.from(hex, 'hex').toString('base64');

/** The API v3 trace context of a finalized group: its root is known when it starts with the external message. */
function groupContext(g: FinalizedGroup): TraceContext {
  const root = g.txs[0]!;
  const external = root.inMessage?.type === 'external-in';
  return { finality: 'finalized', emulated: false, traceId: external ? root.hash : null, traceExternalHash: external ? root.inMessage!.hash : null, traceExternalHashNorm: g.norm };
}


/** A batch's transaction as a finalized API v3 object (src/streaming/v2/v3), serialised once for every recipient. */
const finalizedJsonCache = new WeakMap<TransactionModel, string>();
function finalizedJson(tx: TransactionModel, ctx: () => TraceContext): string {
  let json = finalizedJsonCache.get(tx);
  if (json === undefined) finalizedJsonCache.set(tx, (json = JSON.stringify(v3Transaction(tx, ctx()))));
  return json;
}

/** A finalized `trace` notification's text up to its actions (unclosed), serialised once for every recipient. */
const traceJsonCache = new WeakMap<Completion, string>();
function traceJson(t: Completion): string {
  let json = traceJsonCache.get(t);
  if (json === undefined) {
    json = JSON.stringify({ type: 'trace', finality: 'finalized', trace_external_hash_norm: b64(t.norm!), trace: t.content.trace, transactions: t.content.transactionMap }).slice(0, -1);
    traceJsonCache.set(t, json);
  }
  return json;
}

/** The finalized `transactions` notification of the group's `txs` (LT descending). */
function finalizedTransactions(g: FinalizedGroup, txs: TransactionModel[]): string {
  const norm = g.norm ? JSON.stringify(b64(g.norm)) : 'null';
  let ctx: TraceContext | undefined;
  const context = () => (ctx ??= groupContext(g));
  const list = ltDescending(txs).map((tx) => finalizedJson(tx, context)).join(',');
  return `{"type":"transactions","finality":"finalized","trace_external_hash_norm":${norm},"transactions":[${list}]}`;
}

/** A subscription that may be sent a completed trace's `trace` or `actions`. */
const wantsCompletions = (c: V2Connection): boolean => !!c.subscription && (c.subscription.types.has('actions') || (c.subscription.types.has('trace') && c.subscription.traces.size > 0));

/** The group's trace tree, transaction map and actions, built once for every recipient. */
const contentCache = new WeakMap<FinalizedGroup, TraceContent>();
function groupContent(g: FinalizedGroup): TraceContent {
  let content = contentCache.get(g);
  if (content === undefined) contentCache.set(g, (content = traceContent(g.txs, groupContext(g), noContractFacts)));
  return content;
}

/** Everything up to the batch's end has been considered for the connection. */
function advance(c: V2Connection, batch: EventBatch): void {
  if (batch.lastPosition >= c.cursor.position) c.cursor = { ...c.cursor, position: batch.lastPosition, kind: LAST_KIND };
}

const ltDescending = (txs: TransactionModel[]): TransactionModel[] => [...txs].sort((a, b) => (a.lt > b.lt ? -1 : a.lt < b.lt ? 1 : 0));
