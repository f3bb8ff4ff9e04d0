// The contents of provisional (pending, confirmed) v2 notifications, built once per tracker event and
// shared by every recipient. Pending: the emulated trace (every transaction `emulated: true`). Confirmed:
// the transactions the non-final blocks hold, completed with the pending emulation's remainder — the
// emulated transactions of the messages still in flight, each consuming the real message it emulated
// (matched by place in the tree: same account, same out-message order, destinations and opcodes) and
// marked `emulated: true`, as the anchor's trace snapshots mix confirmed and emulated transactions.
// Actions are classified only over a whole trace (every internal message its transactions sent consumed
// within it), with contract facts proven by get-methods (bounded), never over a part.
import type { AccountId, MessageModel, TransactionModel } from '../../chain/model.js';
import type { ConfirmedEvent, PendingEvent } from '../../pipeline/finality/types.js';
import { ENRICH_TIMEOUT_MS, within } from './enrich.js';
import {
  byLtDescending,
  classifyActions,
  noContractFacts,
  readContractFacts,
  traceTree,
  transactionMap,
  v3Transaction,
  type ContractFacts,
  type GetMethodRunner,
  type TraceContext,
  type V3Action,
  type V3TraceNode,
  type V3Transaction,
} from './v3/index.js';

export type LiveEvent = PendingEvent | ConfirmedEvent;

/** A provisional trace: its transactions (root first, then as executed) and which of them are emulated. */
export interface ProvisionalTrace {
  txs: TransactionModel[];
  emulated: ReadonlySet<TransactionModel>;
  /** Every internal message its transactions sent was consumed within it, and nothing was cut. */
  whole: boolean;
}

const traces = new WeakMap<LiveEvent, ProvisionalTrace>();

/** The event's trace, built once. */
export function provisionalTrace(event: LiveEvent): ProvisionalTrace {
  let t = traces.get(event);
  if (!t) traces.set(event, (t = buildTrace(event)));
  return t;
}

function buildTrace(event: LiveEvent): ProvisionalTrace {
  if (event.finality === 'pending') {
    const txs = event.transactions;
    return { txs, emulated: new Set(txs), whole: !event.truncated && isWhole(txs) };
  }
  const real = event.transactions;
  const completed = event.emulated && !event.emulated.truncated ? complete(real, event.emulated.transactions) : null;
  if (completed) return { txs: [...real, ...completed], emulated: new Set(completed), whole: !event.truncated && isWhole([...real, ...completed]) };
  return { txs: real, emulated: new Set(), whole: !event.truncated && isWhole(real) };
}

/** The trace starts with its external message and every internal message it sent was consumed within it. */
export function isWhole(txs: readonly TransactionModel[]): boolean {
  if (txs.length === 0 || txs[0]!.inMessage?.type !== 'external-in') return false;
  const consumed = new Set(txs.map((tx) => tx.inMessage?.hash));
  return txs.every((tx) => tx.outMessages.every((m) => m.type !== 'internal' || consumed.has(m.hash)));
}

const sameShape = (e: MessageModel, r: MessageModel) => e.type === r.type && e.destination === r.destination && (e.opcode ?? null) === (r.opcode ?? null);

/**
 * The emulated transactions of the messages the real transactions sent and nothing consumed yet, each
 * with the real message it emulated as its inbound message, and their emulated descendants. Null when the
 * real trace departs from the emulation (another account, other messages, a transaction the emulation
 * did not have): then the emulation says nothing about the rest.
 */
export function complete(real: readonly TransactionModel[], emulation: readonly TransactionModel[]): TransactionModel[] | null {
  const realRoot = real[0];
  const emuRoot = emulation[0];
  if (!realRoot || !emuRoot || realRoot.account !== emuRoot.account || realRoot.inMessage?.type !== 'external-in') return null;
  const realByIn = new Map(real.flatMap((tx) => (tx.inMessage ? [[tx.inMessage.hash, tx] as const] : [])));
  const emuByIn = new Map(emulation.flatMap((tx) => (tx.inMessage ? [[tx.inMessage.hash, tx] as const] : [])));
  const remainder: TransactionModel[] = [];
  let matched = 0;
  const graft = (tx: TransactionModel, inMessage: MessageModel | null) => {
    const queue = [inMessage ? { ...tx, inMessage } : tx];
    while (queue.length > 0) {
      const next = queue.shift()!;
      remainder.push(next);
      for (const m of next.outMessages) {
        const child = emuByIn.get(m.hash);
        if (child) queue.push(child);
      }
    }
  };
  const walk = (e: TransactionModel, r: TransactionModel): boolean => {
    matched++;
    if (e.account !== r.account || e.outMessages.length !== r.outMessages.length) return false;
    return e.outMessages.every((em, i) => {
      const rm = r.outMessages[i]!;
      if (!sameShape(em, rm)) return false;
      if (rm.type !== 'internal') return true;
      const rc = realByIn.get(rm.hash);
      const ec = emuByIn.get(em.hash);
      if (rc) return !!ec && walk(ec, rc);
      if (ec) graft(ec, rm);
      return true;
    });
  };
  if (!walk(emuRoot, realRoot) || matched !== real.length) return null;
  return remainder;
}

export interface ProvisionalContent {
  /** Each transaction's API v3 object and its JSON text. */
  v3: Map<TransactionModel, V3Transaction>;
  json: Map<TransactionModel, string>;
  trace: V3TraceNode | null;
  transactionMap: Record<string, V3Transaction>;
  /** Null when the trace is not whole (never classified from a part). */
  actions: V3Action[] | null;
  /** Raw accounts the content mentions. */
  addresses: AccountId[];
}

const contexts = (event: LiveEvent, t: ProvisionalTrace) => {
  const root = t.txs[0];
  const base = { traceId: root?.hash ?? null, traceExternalHash: root?.inMessage?.type === 'external-in' ? root.inMessage.hash : null, traceExternalHashNorm: event.trace };
  const real: TraceContext = { ...base, finality: event.finality, emulated: false };
  // an emulated transaction is at the pending level whatever the trace's (as the anchor's per-transaction finality)
  const emulated: TraceContext = { ...base, finality: 'pending', emulated: true };
  return { real, emulated };
};

const built = new WeakMap<LiveEvent, Omit<ProvisionalContent, 'actions'>>();

/** Transactions, tree and map of the event's trace (built once). */
export function provisionalContent(event: LiveEvent): Omit<ProvisionalContent, 'actions'> {
  let c = built.get(event);
  if (c) return c;
  const t = provisionalTrace(event);
  const ctx = contexts(event, t);
  const json = new Map<TransactionModel, string>();
  const v3 = new Map<TransactionModel, V3Transaction>();
  for (const tx of t.txs) {
    const o = v3Transaction(tx, t.emulated.has(tx) ? ctx.emulated : ctx.real);
    v3.set(tx, o);
    json.set(tx, JSON.stringify(o));
  }
  const addresses = new Set<AccountId>();
  for (const tx of t.txs) {
    addresses.add(tx.account);
    if (tx.inMessage?.source) addresses.add(tx.inMessage.source);
    for (const m of tx.outMessages) if (m.destination) addresses.add(m.destination);
  }
  c = { v3, json, trace: traceTree(t.txs), transactionMap: transactionMap([...v3.values()]), addresses: [...addresses].sort() };
  built.set(event, c);
  return c;
}

/** The transactions of `accounts` in the event's trace, LT descending. */
export function provisionalTransactions(event: LiveEvent, accounts: ReadonlySet<AccountId>): TransactionModel[] {
  return provisionalTrace(event).txs.filter((tx) => accounts.has(tx.account)).sort(byLtDescending);
}

const actionsBuilt = new WeakMap<LiveEvent, Promise<V3Action[] | null>>();

/**
 * The event's actions over its whole trace, with contract facts proven through `run` (each read bounded;
 * facts not proven in time leave those contracts unclassified as jetton or NFT, never misclassified);
 * null when the trace is not whole. Built once per event.
 */
export function provisionalActions(event: LiveEvent, run: GetMethodRunner | null, timeoutMs = ENRICH_TIMEOUT_MS): Promise<V3Action[] | null> {
  let p = actionsBuilt.get(event);
  if (p) return p;
  const t = provisionalTrace(event);
  if (!t.whole) p = Promise.resolve(null);
  else {
    const facts: Promise<ContractFacts> = run ? within(readContractFacts(t.txs, run), timeoutMs, noContractFacts) : Promise.resolve(noContractFacts);
    p = facts.then((f) => classifyActions(t.txs, contexts(event, t).real, f));
  }
  actionsBuilt.set(event, p);
  return p;
}
