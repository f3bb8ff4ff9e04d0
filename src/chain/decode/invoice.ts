// The invoice payload that Tonkeeper-style payment links carry in `bin` and wallets put in the message
// body or jetton forward payload:
//   invoice_payload#7aa23eb5 id:bits128 url:PaymentProviderUrl = InvoicePayload;
//   none#00 = PaymentProviderUrl;   tonsite#01 adnl:bits256 = PaymentProviderUrl;
// (the layout written by Tonkeeper's instant-pay SDK: an 8-bit tag, then the ADNL address of a TON Site).
import { beginCell, type Cell } from '@ton/core';
import { crc16 } from '../address.js';
import { OP } from './opcode.js';
import type { Reader } from '../cell/reader.js';
import { CellLayoutError } from './reader.js';

const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

export interface InvoicePayload {
  /** Lowercase UUID `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`. */
  invoiceId: string;
  /** `<55 base32 chars>.adnl` for a TON Site provider, null for `none`. */
  url: string | null;
  /** Set when the url part is missing or has an unknown tag; the id is still good. */
  malformed?: string;
}

function uuidFromBytes(bytes: Buffer): string {
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** ADNL address in its text form (as TON Sites and DNS show it): base32 of 0x2d‖id‖crc16, first char dropped. */
export function adnlToText(id: Buffer): string {
  const buf = Buffer.alloc(35);
  buf[0] = 0x2d;
  id.copy(buf, 1);
  buf.writeUInt16BE(crc16(buf.subarray(0, 33)), 33);
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const byte of buf) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  return `${out.slice(1)}.adnl`;
}

/** Reads the payload after its opcode (the reader is past the 32-bit op). */
export function readInvoicePayload(r: Reader): InvoicePayload {
  if (r.remainingBits < 128) throw new CellLayoutError(`invoice id needs 128 bits, ${r.remainingBits} left`);
  const invoiceId = uuidFromBytes(r.bytesOf(16));
  if (r.remainingBits < 8) return { invoiceId, url: null, malformed: 'invoice payload has no url tag' };
  const tag = r.uint(8);
  if (tag === 0) return { invoiceId, url: null };
  if (tag === 1 && r.remainingBits >= 256) return { invoiceId, url: adnlToText(Buffer.from(r.bytesOf(32))) };
  return { invoiceId, url: null, malformed: `invoice payload url: unknown or short constructor 0x${tag.toString(16).padStart(2, '0')}` };
}

/** The payload for a payment link's `bin` (or a body): invoice id, no provider url. */
export function buildInvoicePayload(uuid: string): Cell {
  if (typeof uuid !== 'string' || !UUID.test(uuid)) throw new Error(`invalid invoice id ${JSON.stringify(uuid)}: expected a UUID`);
  return beginCell()
    .storeUint(OP.invoicePayload, 32)
    .storeBuffer(Buffer.from(uuid.replace(/-/g, ''), 'hex'))
    .storeUint(0, 8)
    .endCell();
}
