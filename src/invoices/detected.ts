// Payments seen before they are final (docs/INVOICES.md, "Detected payments"): a TON transfer to an
// invoice's recipient naming the invoice, in a trace that is pending (read from the signed external
// message's out messages) or confirmed (the trace's first transaction's out messages). Shown on the
// invoice as `detected`, in memory on every node (each mirrors the finality levels); it never changes the
// invoice's status: `paid` still comes only from the finalized log through the matcher.
import { Cell, loadMessage } from '@ton/core';
import type { AccountId, HashHex, MessageModel } from '../chain/model.js';
import { decodeMessage } from '../chain/decode/message.js';
import type { FinalityTracker } from '../pipeline/finality/tracker.js';
import type { ProvisionalEvent } from '../pipeline/finality/types.js';
import { invoiceIdOf, type RecipientIndex } from './payments.js';
import type { DetectedJson } from './wire.js';

/** Out messages sit this deep at most in a wallet's signed body (v5 nests its action list). */
const MAX_DEPTH = 4;

interface Detection {
  trace: HashHex;
  amount: bigint;
  finality: 'pending' | 'confirmed' | 'finalized';
  /** Unix seconds when first seen. */
  at: number;
  /** When to forget it (ms): a bound after its trace ended. */
  forgetAt: number | null;
}

export class PaymentDetector {
  private readonly byInvoice = new Map<string, Detection>();
  private readonly byTrace = new Map<HashHex, string>();
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly tracker: FinalityTracker,
    private readonly index: RecipientIndex,
    private readonly now: () => number,
    /** Told of each invoice's first detection (the optional `invoice.detected` webhook). */
    private readonly onDetected?: (invoiceId: string, detected: DetectedJson) => void,
  ) {}

  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.tracker.subscribe((e) => this.observe(e));
    // traces in flight before this started (a member's mirror filled at its start)
    for (const e of this.tracker.inFlight({ count: false })) this.observe(e);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** The payment seen for an invoice and not invalidated, or undefined. */
  detected(invoiceId: string): DetectedJson | undefined {
    const d = this.byInvoice.get(invoiceId);
    if (!d) return undefined;
    if (d.forgetAt !== null && this.now() >= d.forgetAt) {
      this.forget(invoiceId, d);
      return undefined;
    }
    return { amount: d.amount.toString(), finality: d.finality, at: d.at, trace: d.trace };
  }

  private observe(event: ProvisionalEvent): void {
    const invoiceId = this.byTrace.get(event.trace);
    const known = invoiceId === undefined ? undefined : this.byInvoice.get(invoiceId);
    if (event.finality === 'invalidated') {
      if (known && known.trace === event.trace) this.forget(invoiceId!, known);
      return;
    }
    if (event.finality === 'finalized') {
      if (known && known.trace === event.trace) Object.assign(known, { finality: 'finalized', forgetAt: this.now() + this.tracker.maxAgeMs });
      this.forgetEnded();
      return;
    }
    if (known) {
      if (known.trace === event.trace) known.finality = event.finality;
      return;
    }
    const messages = event.finality === 'pending' ? signedOutMessages(event.boc) : event.transaction.outMessages;
    for (const m of messages) {
      const paid = this.invoicePaid(m);
      if (!paid) continue;
      // the first trace seen paying an invoice is the one shown
      if (this.byInvoice.has(paid.invoiceId)) continue;
      const d: Detection = { trace: event.trace, amount: paid.amount, finality: event.finality, at: Math.floor(this.now() / 1000), forgetAt: null };
      this.byInvoice.set(paid.invoiceId, d);
      this.byTrace.set(event.trace, paid.invoiceId);
      this.onDetected?.(paid.invoiceId, { amount: d.amount.toString(), finality: d.finality, at: d.at, trace: d.trace });
      return;
    }
  }

  /** A TON transfer to a recipient whose body names an invoice (the matcher's rule, without the credit it cannot know yet). */
  private invoicePaid(m: MessageModel): { invoiceId: string; amount: bigint } | null {
    if (m.type !== 'internal' || m.destination === null || !this.index.isRecipient(m.destination as AccountId)) return null;
    const d = m.decoded;
    const invoiceId = d.kind === 'invoice_payload' ? d.invoiceId : d.kind === 'text_comment' ? invoiceIdOf({ comment: d.text.trim() }) : null;
    return invoiceId === null ? null : { invoiceId, amount: m.value };
  }

  /** Drops detections a bound after their trace was finalized (the matcher has made those invoices paid). */
  private forgetEnded(): void {
    const now = this.now();
    for (const [invoiceId, d] of this.byInvoice) if (d.forgetAt !== null && now >= d.forgetAt) this.forget(invoiceId, d);
  }

  private forget(invoiceId: string, d: Detection): void {
    this.byInvoice.delete(invoiceId);
    this.byTrace.delete(d.trace);
  }
}

/** The internal messages a signed external message carries for its wallet to send (found among the body's references). */
export function signedOutMessages(boc: string): MessageModel[] {
  let body: Cell;
  try {
    body = loadMessage(Cell.fromBase64(boc).beginParse()).body;
  } catch {
    return [];
  }
  const found: MessageModel[] = [];
  const visit = (cell: Cell, depth: number) => {
    for (const ref of cell.refs) {
      try {
        const m = decodeMessage(ref);
        if (m.type === 'internal') {
          found.push(m);
          continue;
        }
      } catch {
        // not a message: an action list or the body's own reference; look inside
      }
      if (depth < MAX_DEPTH) visit(ref, depth + 1);
    }
  };
  visit(body, 1);
  return found;
}
