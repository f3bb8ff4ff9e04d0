// Recognising invoice payments in finalized transactions (compat.md §5, §7):
// - TON: an internal message credited to a recipient wallet whose body is the invoice payload or a
//   text comment equal to the invoice id;
// - USDT: an `internal_transfer` credited on the recipient's USDT jetton wallet as the configured
//   master derives it, with the payload or the comment in the forward payload; the payer is `from`.
// Notifications are never matched: one that carries an invoice id and does not come from the derived
// jetton wallet is a look-alike token or a forgery, reported as ignored.
import type { AccountId, PayloadContent, TransactionModel } from '../chain/model.js';
import type { Currency } from './model.js';
import { parseInvoiceId } from './validate.js';

export type IgnoreReason =
  | 'bounced'
  | 'failed'
  | 'unknown_invoice'
  | 'wrong_recipient'
  | 'currency_mismatch'
  | 'untrusted_notification';

export interface PaymentCandidate {
  invoiceId: string;
  currency: Currency;
  amount: bigint;
  payer: AccountId | null;
  /** The recipient wallet paid (for USDT, the owner of the jetton wallet). */
  recipient: AccountId;
  tx: TransactionModel;
}

export type Recognised = { kind: 'payment'; payment: PaymentCandidate } | { kind: 'ignored'; reason: IgnoreReason; invoiceId: string; tx: TransactionModel };

export interface RecipientIndex {
  isRecipient(account: AccountId): boolean;
  usdtOwner(jettonWallet: AccountId): AccountId | undefined;
  usdtWalletOf(recipient: AccountId): AccountId | undefined;
}

/** The invoice id a payload names: the invoice payload, or a comment that is exactly an invoice id. */
export function invoiceIdOf(content: PayloadContent | { invoiceId?: string; comment?: string }): string | null {
  if (content.invoiceId) return content.invoiceId;
  if (content.comment !== undefined && content.comment.length <= 40) return parseInvoiceId(content.comment);
  return null;
}

/** What a transaction means for invoices: a payment, an ignored attempt, or nothing (null). */
export function recognise(tx: TransactionModel, index: RecipientIndex): Recognised | null {
  const msg = tx.inMessage;
  if (!msg || msg.type !== 'internal') return null;
  const d = msg.decoded;
  if (index.isRecipient(tx.account)) {
    if (d.kind === 'jetton_notify') {
      const invoiceId = invoiceIdOf(d.forwardPayload);
      if (invoiceId === null) return null;
      // the genuine notification accompanies a transfer matched on the jetton wallet
      if (msg.source !== null && msg.source === index.usdtWalletOf(tx.account)) return null;
      return { kind: 'ignored', reason: 'untrusted_notification', invoiceId, tx };
    }
    const invoiceId =
      d.kind === 'invoice_payload' ? d.invoiceId : d.kind === 'text_comment' ? invoiceIdOf({ comment: d.text.trim() }) : null;
    if (invoiceId === null) return null;
    if (tx.inbound !== 'credited') return { kind: 'ignored', reason: tx.inbound === 'bounced' ? 'bounced' : 'failed', invoiceId, tx };
    return { kind: 'payment', payment: { invoiceId, currency: 'TON', amount: msg.value, payer: msg.source, recipient: tx.account, tx } };
  }
  const owner = index.usdtOwner(tx.account);
  if (owner !== undefined && d.kind === 'jetton_internal_transfer') {
    const invoiceId = invoiceIdOf(d.forwardPayload);
    if (invoiceId === null) return null;
    if (tx.inbound !== 'credited') return { kind: 'ignored', reason: tx.inbound === 'bounced' ? 'bounced' : 'failed', invoiceId, tx };
    return { kind: 'payment', payment: { invoiceId, currency: 'USDT', amount: d.amount, payer: d.from, recipient: owner, tx } };
  }
  return null;
}
