// External messages heard on the overlay (src/chain/overlay/listener.ts) becoming pending messages of the
// liteserver source: each parsed as a message BoC, emulated once on proven state like a message this
// process sends (for the accounts and opcodes filtered mempool streams need), then put in the outbox, which
// publishes it to the mempool stream and webhooks. A bounded queue in front of emulation: a flood past it
// is dropped and counted. When a walked block holds a heard message, its lead time (heard → walked) is kept.
import { LRUCache } from 'lru-cache';
import type { PendingMessage, TransactionModel } from '../model.js';
import { parseExternalMessage, type ExternalMessage, type Outbox } from './outbox.js';

/** An emulated trace: its transactions, opcodes, accounts (of its transactions and of the messages it did not run), and whether it was cut short. */
export type Trace = { transactions: TransactionModel[]; opcodes: number[]; accounts: string[]; truncated?: boolean };

/** The pending message of an external message, with its trace's accounts, opcodes and transactions when it was emulated. */
export function pendingOf(msg: ExternalMessage, trace: Trace | null, receivedAtMs: number): PendingMessage {
  const pending: PendingMessage = {
    hash: msg.hash, boc: msg.cell.toBoc().toString('base64'), destination: msg.destination, receivedAt: Math.floor(receivedAtMs / 1000), involvedAccounts: null,
  };
  if (trace) {
    pending.involvedAccounts = trace.accounts;
    pending.opcodes = trace.opcodes;
    pending.emulated = { transactions: trace.transactions, truncated: trace.truncated ?? false };
  }
  return pending;
}

export interface HeardStatus {
  /** Messages waiting for emulation. */
  queued: number;
  /** Published as pending (emulated, or not when emulation failed). */
  published: number;
  /** Of those, published without a trace: emulation failed or did not end within its budget. */
  unemulated: number;
  /** Of those, published before their emulation ended because a non-final block holding them was seen. */
  flushed: number;
  /** Already pending (heard twice, or sent by this process). */
  duplicate: number;
  /** Refused as a message BoC, or dropped because the queue was full. */
  invalid: number;
  dropped: number;
  /** Heard messages a walked block held, and how long before it they were heard. */
  landed: number;
  /** Heard, but a block held them before their emulation ended: never published. */
  late: number;
  leadMs: { p50: number; p99: number } | null;
  /** How long from hearing a message to publishing it (emulation and its queue). */
  publishMs: { p50: number; p99: number } | null;
}

const LEAD_SAMPLES = 4096;

export class HeardMessages {
  private readonly queue: Array<{ msg: ExternalMessage; seenAt: number }> = [];
  private readonly queuedHashes = new Set<string>();
  /** Messages being emulated → their publication without a trace (a block holding them came first). */
  private readonly emulating = new Map<string, () => void>();
  /** Destinations with an emulation running. */
  private readonly busy = new Set<string>();
  /** Heard message hash → when it was heard, until a block holds it (bounded like the outbox). */
  private readonly seen: LRUCache<string, number>;
  private readonly leads: number[] = [];
  private readonly delays: number[] = [];
  private readonly late = new Set<string>();
  private running = 0;
  private readonly counts = { published: 0, unemulated: 0, flushed: 0, duplicate: 0, invalid: 0, dropped: 0, landed: 0, late: 0 };

  constructor(
    private readonly outbox: Outbox,
    /** Emulates; past `deadline` (ms) it stops after the hop it is in and returns the trace so far. */
    private readonly emulate: (msg: ExternalMessage, deadline: number) => Promise<Trace>,
    private readonly options: {
      maxQueued: number;
      concurrency: number;
      maxTracked: number;
      /** A message is published this long after it was heard at the latest, emulated or not (a block comes soon). */
      emulationBudgetMs: number;
      now?: () => number;
    },
  ) {
    this.seen = new LRUCache({ max: options.maxTracked });
  }

  hear(boc: Buffer, seenAt: number): void {
    let msg: ExternalMessage;
    try {
      msg = parseExternalMessage(boc);
    } catch {
      return void this.counts.invalid++;
    }
    if (this.queuedHashes.has(msg.hash) || this.outbox.has(msg.hash)) return void this.counts.duplicate++;
    if (this.queue.length >= this.options.maxQueued) return void this.counts.dropped++;
    this.queue.push({ msg, seenAt });
    this.queuedHashes.add(msg.hash);
    this.pump();
  }

  /**
   * A non-final block holds these transactions: a heard message still waiting for its emulation is published
   * now, without a trace, so its pending event comes before the block's (confirmed) events of its trace.
   * Call it before the block goes to anyone else.
   */
  inBlock(transactions: readonly TransactionModel[]): void {
    if (this.queuedHashes.size === 0) return;
    for (const tx of transactions) {
      const hash = tx.inMessage?.hash;
      if (hash === undefined || !this.queuedHashes.has(hash)) continue;
      this.counts.flushed++;
      const running = this.emulating.get(hash);
      if (running) {
        running();
        continue;
      }
      const i = this.queue.findIndex((q) => q.msg.hash === hash);
      const [{ msg, seenAt }] = this.queue.splice(i, 1);
      this.queuedHashes.delete(hash);
      this.publish(msg!, null, seenAt!);
    }
  }

  /** Records the lead time of each heard message these walked transactions consumed. */
  landed(transactions: readonly TransactionModel[]): void {
    if (this.seen.size === 0 && this.queuedHashes.size === 0) return;
    const now = (this.options.now ?? Date.now)();
    for (const tx of transactions) {
      // a block held it before its emulation ended: it is no longer pending
      if (tx.inMessage && this.queuedHashes.has(tx.inMessage.hash)) this.late.add(tx.inMessage.hash);
      const at = tx.inMessage ? this.seen.peek(tx.inMessage.hash) : undefined;
      if (at === undefined) continue;
      this.seen.delete(tx.inMessage!.hash);
      this.counts.landed++;
      this.leads.push(now - at);
      if (this.leads.length > LEAD_SAMPLES) this.leads.shift();
    }
  }

  status(): HeardStatus {
    return { queued: this.queue.length, ...this.counts, leadMs: quantiles(this.leads), publishMs: quantiles(this.delays) };
  }

  private pump(): void {
    const now = this.options.now ?? Date.now;
    // past the budget while waiting for a turn: published now, without a trace
    for (let i = 0; i < this.queue.length; ) {
      const q = this.queue[i]!;
      if (q.seenAt + this.options.emulationBudgetMs > now()) i++;
      else {
        this.queue.splice(i, 1);
        this.queuedHashes.delete(q.msg.hash);
        this.publish(q.msg, null, q.seenAt);
      }
    }
    while (this.running < this.options.concurrency) {
      // one emulation per destination at a time: a wallet's next message runs on the state its previous one left
      const next = this.queue.findIndex((q) => !this.busy.has(q.msg.destination));
      if (next < 0) break;
      const [{ msg, seenAt }] = this.queue.splice(next, 1) as [{ msg: ExternalMessage; seenAt: number }];
      let done = false;
      // Filters want the trace, but a pending message is worth most before its block: past the budget it goes without.
      const publish = (trace: Trace | null) => {
        if (done) return;
        done = true;
        this.emulating.delete(msg.hash);
        this.queuedHashes.delete(msg.hash);
        this.publish(msg, trace, seenAt);
      };
      const left = seenAt + this.options.emulationBudgetMs - now();
      if (left <= 0) {
        publish(null);
        continue;
      }
      this.running++;
      this.busy.add(msg.destination);
      const timer = setTimeout(() => publish(null), left);
      this.emulating.set(msg.hash, () => {
        clearTimeout(timer);
        publish(null);
      });
      // the hops it has not run by then still name their accounts: a batch's payees are matched without their runs
      void this.emulate(msg, seenAt + this.options.emulationBudgetMs * 0.75).catch(() => null).then((trace) => {
        clearTimeout(timer);
        this.running--;
        this.busy.delete(msg.destination);
        publish(trace);
        this.pump();
      });
    }
  }

  private publish(msg: ExternalMessage, trace: Trace | null, seenAt: number): void {
    if (this.late.delete(msg.hash)) return void this.counts.late++;
    if (this.outbox.has(msg.hash)) return void this.counts.duplicate++;
    this.seen.set(msg.hash, seenAt);
    this.outbox.add({ ...pendingOf(msg, trace, seenAt), origin: 'overlay' });
    this.counts.published++;
    if (!trace) this.counts.unemulated++;
    this.delays.push((this.options.now ?? Date.now)() - seenAt);
    if (this.delays.length > LEAD_SAMPLES) this.delays.shift();
  }
}

function quantiles(samples: readonly number[]): { p50: number; p99: number } | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return { p50: q(0.5), p99: q(0.99) };
}
