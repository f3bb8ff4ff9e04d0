// The payment link a wallet app follows (compat.md §5) and its QR code:
//   ton://transfer/<pay_to>?amount=<units>&bin=<base64url invoice payload BoC>&exp=<date_expire>
// plus `jetton=<USDT master>` for USDT, where the payload rides as the jetton forward payload.
import QRCode from 'qrcode';
import { toFriendly } from '../chain/address.js';
import { buildInvoicePayload, cellToBoc } from '../chain/decode/index.js';
import type { AccountId } from '../chain/model.js';
import type { Currency } from './model.js';

export interface LinkInput {
  invoiceId: string;
  payTo: AccountId;
  amount: bigint;
  dateExpire: number;
  currency: Currency;
  /** The USDT master for USDT invoices. */
  usdtMaster: AccountId | null;
  /** Test-network address forms (testnet). */
  testOnly: boolean;
}

/** The invoice payload BoC (`invoice_payload#7aa23eb5`) as base64url, the `bin` of the link. */
export function invoicePayloadBase64(invoiceId: string): string {
  return cellToBoc(buildInvoicePayload(invoiceId)).toString('base64url');
}

/** User-friendly forms already computed (a handful of recipients and masters, asked on every create). */
const friendlyForms = new Map<string, string>();

function friendly(account: AccountId, bounceable: boolean, testOnly: boolean): string {
  const key = `${account}|${bounceable}|${testOnly}`;
  let form = friendlyForms.get(key);
  if (form === undefined) {
    if (friendlyForms.size > 10_000) friendlyForms.clear();
    friendlyForms.set(key, (form = toFriendly(account, { bounceable, testOnly })));
  }
  return form;
}

/** A wallet's address as wallet apps show it: the non-bounceable form (`UQ…`; `0Q…` on testnet). */
export function walletAddress(account: AccountId, testOnly: boolean): string {
  return friendly(account, false, testOnly);
}

export function paymentLink(input: LinkInput): string {
  // wallets are paid at their non-bounceable form, as wallet apps show them
  const to = walletAddress(input.payTo, input.testOnly);
  let link = `ton://transfer/${to}?amount=${input.amount}&bin=${invoicePayloadBase64(input.invoiceId)}&exp=${input.dateExpire}`;
  if (input.currency === 'USDT') {
    if (!input.usdtMaster) throw new Error('a USDT invoice needs the USDT master');
    link += `&jetton=${friendly(input.usdtMaster, true, input.testOnly)}`;
  }
  return link;
}

export type QrFormat = 'png' | 'svg';

/** The QR code of a link: PNG bytes or SVG text, `size` pixels wide (PNG) or as the SVG's width. */
export async function qrCode(link: string, format: QrFormat, size: number): Promise<Buffer | string> {
  const options = { errorCorrectionLevel: 'M' as const, margin: 2, width: size };
  if (format === 'svg') return QRCode.toString(link, { ...options, type: 'svg' });
  return QRCode.toBuffer(link, { ...options, type: 'png' });
}
