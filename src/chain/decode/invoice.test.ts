import { beginCell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { decodeBody } from './body.js';
import { adnlToText, buildInvoicePayload } from './invoice.js';
import { OP } from './opcode.js';

const UUID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

/** RFC 4648 base32 (lowercase) decoding, written independently of the encoder under test. */
function base32Decode(text: string): Buffer {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = '';
  for (const ch of text) bits += alphabet.indexOf(ch).toString(2).padStart(5, '0');
  const out: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) out.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(out);
}

describe('invoice payload', () => {
  it('builds op 0x7aa23eb5 + 128-bit id + none, and decodes back to the lowercase UUID', () => {
    const cell = buildInvoicePayload(UUID.toUpperCase());
    expect(cell.bits.length).toBe(32 + 128 + 8);
    const s = cell.beginParse();
    expect(s.loadUint(32)).toBe(0x7aa23eb5);
    expect(s.loadBuffer(16).toString('hex')).toBe(UUID.replace(/-/g, ''));
    expect(s.loadUint(8)).toBe(0);
    expect(decodeBody(cell)).toEqual({ kind: 'invoice_payload', invoiceId: UUID, url: null });
  });

  it('accepts a UUID without dashes and rejects anything else', () => {
    expect(decodeBody(buildInvoicePayload(UUID.replace(/-/g, '')))).toMatchObject({ invoiceId: UUID });
    for (const bad of ['', 'not-a-uuid', UUID.slice(1), `${UUID}0`]) expect(() => buildInvoicePayload(bad)).toThrow(/invalid invoice id/);
  });

  it('decodes the tonsite provider url as the .adnl text form of the ADNL address', () => {
    const adnl = Buffer.from('0f'.repeat(32), 'hex');
    const cell = beginCell()
      .storeUint(OP.invoicePayload, 32)
      .storeBuffer(Buffer.from(UUID.replace(/-/g, ''), 'hex'))
      .storeUint(1, 8)
      .storeBuffer(adnl)
      .endCell();
    const decoded = decodeBody(cell);
    expect(decoded).toMatchObject({ kind: 'invoice_payload', invoiceId: UUID });
    const url = (decoded as { url: string }).url;
    expect(url).toMatch(/^[a-z2-7]{55}\.adnl$/);
    expect(url).toBe(adnlToText(adnl));
    // 0x2d makes the dropped first character 'f'; the rest is id and CRC16.
    const bytes = base32Decode(`f${url.slice(0, 55)}`);
    expect(bytes[0]).toBe(0x2d);
    expect(bytes.subarray(1, 33).equals(adnl)).toBe(true);
  });

  it('keeps the id when the url part is missing or unknown', () => {
    const id = Buffer.from(UUID.replace(/-/g, ''), 'hex');
    const noUrl = beginCell().storeUint(OP.invoicePayload, 32).storeBuffer(id).endCell();
    expect(decodeBody(noUrl)).toEqual({ kind: 'invoice_payload', invoiceId: UUID, url: null });
    const unknownTag = beginCell().storeUint(OP.invoicePayload, 32).storeBuffer(id).storeUint(9, 8).endCell();
    expect(decodeBody(unknownTag)).toEqual({ kind: 'invoice_payload', invoiceId: UUID, url: null });
  });

  it('a payload too short for the id is unknown, with the reason', () => {
    const short = beginCell().storeUint(OP.invoicePayload, 32).storeUint(1, 64).endCell();
    const decoded = decodeBody(short);
    expect(decoded.kind).toBe('unknown');
    expect((decoded as { reason: string }).reason).toMatch(/invoice payload \(0x7aa23eb5\): cannot read id/);
  });
});
