// Payload content (comment, encrypted comment, invoice, or a binary opcode) and the jetton forward
// payload `forward_payload:(Either Cell ^Cell)` in every layout of compat.md §7.
import type { ForwardPayload, PayloadContent } from '../model.js';
import { readInvoicePayload } from './invoice.js';
import { OP } from './opcode.js';
import type { Reader } from '../cell/reader.js';
import { readSnakeBytes, decodeUtf8 } from './text.js';

/** What the unread part of `r` says; `malformed` when a known layout could not be read. */
export function readPayloadContent(r: Reader): PayloadContent & { malformed?: string } {
  if (r.remainingBits < 32) return {};
  const op = r.uint(32);
  switch (op) {
    case OP.textComment:
      return { comment: decodeUtf8(readSnakeBytes(r).bytes) };
    case OP.encryptedComment:
      return { encryptedComment: readSnakeBytes(r).bytes.toString('hex') };
    case OP.invoicePayload:
      try {
        const invoice = readInvoicePayload(r);
        return invoice.malformed ? { invoiceId: invoice.invoiceId, malformed: invoice.malformed } : { invoiceId: invoice.invoiceId };
      } catch (err) {
        return { opcode: op, malformed: `invoice payload: ${(err as Error).message}` };
      }
    default:
      return { opcode: op };
  }
}

/**
 * Reads `forward_payload:(Either Cell ^Cell)` at `r`. Never throws: a declared ref that is missing, or a
 * payload that is absent altogether, is recorded in `malformed`.
 */
export function readForwardPayload(r: Reader): ForwardPayload {
  if (r.remainingBits === 0) {
    // No Either bit at all: some senders drop the field; there is nothing to read.
    return r.remainingRefs > 0
      ? fromRef(r.refReader(), 'forward_payload has no Either bit; read the next ref')
      : { layout: 'none', malformed: 'forward_payload is missing (no Either bit)' };
  }
  if (!r.bool()) {
    if (r.remainingBits === 0 && r.remainingRefs === 0) return { layout: 'none' };
    const boc = r.restToBoc().toString('base64');
    return withContent({ layout: 'inline', boc }, readPayloadContent(r));
  }
  if (r.remainingRefs === 0) return { layout: 'ref', malformed: 'forward_payload declares a ref (bit 1) but has none' };
  return fromRef(r.refReader());
}

function fromRef(payload: Reader, malformed?: string): ForwardPayload {
  const result: ForwardPayload = { layout: 'ref', boc: payload.cellBoc().toString('base64') };
  if (malformed) result.malformed = malformed;
  return withContent(result, readPayloadContent(payload));
}

function withContent(base: ForwardPayload, content: PayloadContent & { malformed?: string }): ForwardPayload {
  const out: ForwardPayload = { ...base, ...content };
  if (base.malformed && content.malformed) out.malformed = `${base.malformed}; ${content.malformed}`;
  return out;
}
