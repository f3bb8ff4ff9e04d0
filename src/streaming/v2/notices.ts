// What the v2 hub sends, before it is filtered per connection: the finalized transactions of one log
// batch grouped by trace, and the event ids that let a client resume (docs/STREAMING.md, "v2 resume").
//
// Ids: a finalized notification's id is `<position>.<k>` — the log position of its group's first
// transaction and its kind (0 `transactions`, 3 `account_state_change`, 4 `jettons_change`), or of the
// log's `trace` event that completed its trace (1 `trace`, 2 `actions`: traces.ts) — the same on every
// node and after a restart, because groups depend on the batch alone and completions are in the log. A provisional notification (not in the log) carries
// `<last finalized id considered>~<provisional sequence>`, so a resume knows both where it was in the
// log and which provisional events it saw.
import type { EventBatch, Position } from '../../bus/events.js';
import type { AccountId, HashHex, MessageModel, TransactionModel } from '../../chain/model.js';
import { normalizedHashOfModel } from '../../chain/message-boc.js';

/** The last kind of a group: a cursor at `<position>.LAST_KIND` has considered that whole group. */
export const LAST_KIND = 9;

export interface V2Cursor {
  position: Position;
  kind: number;
  /** The provisional sequence the client had seen, when its id was a provisional one. */
  provisional: number | null;
}

export const cursorId = (c: { position: Position; kind: number }): string => `${c.position}.${c.kind}`;

/** Parses a `Last-Event-ID` / `last_event_id`; null when it is not one of ours. */
export function parseEventId(text: string): V2Cursor | null {
  const m = /^(-?\d{1,16})(?:\.(\d))?(?:~(\d{1,16}))?$/.exec(text.trim());
  if (!m) return null;
  return { position: Number(m[1]), kind: m[2] === undefined ? LAST_KIND : Number(m[2]), provisional: m[3] === undefined ? null : Number(m[3]) };
}

export const after = (id: { position: Position; kind: number }, cursor: { position: Position; kind: number }): boolean =>
  id.position > cursor.position || (id.position === cursor.position && id.kind > cursor.kind);

/** Where a trace starts: its normalised hash is computed on first use (most groups reach no v2 client). */
export class TraceRoot {
  private value: HashHex | null | undefined;
  constructor(private readonly external: MessageModel | null) {}
  get norm(): HashHex | null {
    if (this.value === undefined) this.value = this.external ? safeNorm(this.external) : null;
    return this.value;
  }
}
const UNKNOWN_ROOT = new TraceRoot(null);

/** Finalized transactions of one trace within one batch. */
export interface FinalizedGroup {
  /** Position of its first transaction event. */
  position: Position;
  root: TraceRoot;
  /** The trace's normalised external hash (hex), null when its start is older than what this node saw. */
  readonly norm: HashHex | null;
  /** In log order (LT ascending within an account). */
  txs: TransactionModel[];
  accounts: Set<AccountId>;
}

/**
 * Message hash → its trace's root, for transactions whose trace started in an earlier block (bounded).
 * Two generations of half the limit each, the older dropped whole when the newer fills: deleting a Map's
 * oldest entry one by one leaves holes that `keys().next()` walks, which at this size took the live
 * fan-out from milliseconds to seconds per block once the limit was reached (~20 s at 10,000 tx/s).
 */
export class TraceNorms {
  private map = new Map<HashHex, TraceRoot>();
  private older = new Map<HashHex, TraceRoot>();
  constructor(private readonly limit = 200_000) {}
  get(message: HashHex): TraceRoot | undefined {
    return this.map.get(message) ?? this.older.get(message);
  }
  set(message: HashHex, root: TraceRoot): void {
    if (this.map.size >= this.limit / 2) {
      this.older = this.map;
      this.map = new Map();
    }
    this.map.set(message, root);
  }
}

/**
 * Groups a batch's transactions by trace: a transaction joins the group of the transaction in the same
 * batch that created its inbound message, else starts a group. Deterministic in the batch alone.
 */
export function groupBatch(batch: EventBatch, norms: TraceNorms): FinalizedGroup[] {
  const groups: FinalizedGroup[] = [];
  const byCreated = new Map<HashHex, FinalizedGroup>();
  for (const event of batch.events) {
    if (event.type !== 'transaction') continue;
    const tx = event.tx;
    const inbound = tx.inMessage;
    let group = inbound ? byCreated.get(inbound.hash) : undefined;
    if (!group) {
      const root = inbound?.type === 'external-in' ? new TraceRoot(inbound) : ((inbound && norms.get(inbound.hash)) ?? UNKNOWN_ROOT);
      group = {
        position: event.position,
        root,
        get norm() {
          return this.root.norm;
        },
        txs: [],
        accounts: new Set(),
      };
      groups.push(group);
    }
    group.txs.push(tx);
    group.accounts.add(tx.account);
    for (const m of tx.outMessages) {
      byCreated.set(m.hash, group);
      if (group.root !== UNKNOWN_ROOT) norms.set(m.hash, group.root);
    }
  }
  return groups;
}

function safeNorm(external: MessageModel): HashHex | null {
  try {
    return normalizedHashOfModel(external);
  } catch {
    return null;
  }
}
