// What a message body means. Never throws: a body that breaks its declared layout becomes
// `{kind:'unknown', reason}` naming the field; a well-formed body with an opcode we do not decode
// becomes `{kind:'binary', opcode}`.
import type { Cell } from '@ton/core';
import type { CellRef } from '../cell/cell.js';
import type { DecodedBody } from '../model.js';
import { readInvoicePayload } from './invoice.js';
import {
  readExcesses,
  readJettonBurn,
  readJettonInternalTransfer,
  readJettonNotify,
  readJettonTransfer,
  type FieldCursor,
} from './jetton.js';
import { OP, opHex } from './opcode.js';
import type { Reader } from '../cell/reader.js';
import { readerOf } from './reader.js';
import { decodeUtf8, readSnakeBytes } from './text.js';

/** Decodes a body cell. */
export function decodeBody(body: Cell | CellRef): DecodedBody {
  if (body.isExotic) return { kind: 'unknown', reason: 'body is an exotic (pruned or library) cell' };
  let r: Reader;
  try {
    r = readerOf(body);
  } catch (err) {
    return { kind: 'unknown', reason: `unreadable cell: ${(err as Error).message}` };
  }
  return decodeBodyAt(r);
}

/** Decodes the unread part of `r` as a body (an inline `Either X ^X` body). Consumes `r`. */
export function decodeBodyAt(r: Reader): DecodedBody {
  if (r.isExotic) return { kind: 'unknown', reason: 'body is an exotic (pruned or library) cell' };
  const bits = r.remainingBits;
  if (bits === 0 && r.remainingRefs === 0) return { kind: 'empty' };
  if (bits < 32) {
    return { kind: 'unknown', reason: `body of ${bits} bits and ${r.remainingRefs} refs has no 32-bit opcode` };
  }
  const op = r.uint(32);
  const field: FieldCursor = { at: 'body' };
  try {
    return decodeOp(op, r, field);
  } catch (err) {
    return { kind: 'unknown', reason: `${describe(op)}: cannot read ${field.at}: ${(err as Error).message}` };
  }
}

function decodeOp(op: number, r: Reader, field: FieldCursor): DecodedBody {
  switch (op) {
    case OP.textComment:
      field.at = 'text';
      return { kind: 'text_comment', text: decodeUtf8(readSnakeBytes(r).bytes) };
    case OP.encryptedComment:
      field.at = 'data';
      return { kind: 'encrypted_comment', data: readSnakeBytes(r).bytes.toString('hex') };
    case OP.invoicePayload: {
      field.at = 'id';
      const invoice = readInvoicePayload(r);
      return { kind: 'invoice_payload', invoiceId: invoice.invoiceId, url: invoice.url };
    }
    case OP.bounced:
      // The node bounces the first 256 bits of the original body after the 0xffffffff prefix.
      return { kind: 'bounced', originalOpcode: r.remainingBits >= 32 ? r.uint(32) : null };
    case OP.newBounced:
      return readNewBounce(r, field);
    case OP.jettonTransfer:
      return readJettonTransfer(r, field);
    case OP.jettonInternalTransfer:
      return readJettonInternalTransfer(r, field);
    case OP.jettonNotify:
      return readJettonNotify(r, field);
    case OP.excesses:
      return readExcesses(r, field);
    case OP.jettonBurn:
      return readJettonBurn(r, field);
    default:
      return { kind: 'binary', opcode: op };
  }
}

// new_bounce_body#fffffffe original_body:^Cell original_info:^NewBounceOriginalInfo bounced_by_phase:uint8
//   exit_code:int32 compute_phase:(Maybe NewBounceComputePhaseInfo); the original body is a ref here.
function readNewBounce(r: Reader, field: FieldCursor): DecodedBody {
  field.at = 'original_body';
  const original = r.refReader();
  field.at = 'original_info';
  r.ref();
  field.at = 'bounced_by_phase';
  r.skip(8 + 32);
  if (r.bool()) r.skip(32 + 32); // gas_used, vm_steps
  return { kind: 'bounced', originalOpcode: original.remainingBits >= 32 ? original.uint(32) : null };
}

const NAMES: Record<number, string> = {
  [OP.newBounced]: 'new bounce body',
  [OP.textComment]: 'text comment',
  [OP.encryptedComment]: 'encrypted comment',
  [OP.invoicePayload]: 'invoice payload',
  [OP.jettonTransfer]: 'jetton transfer',
  [OP.jettonInternalTransfer]: 'jetton internal_transfer',
  [OP.jettonNotify]: 'jetton transfer_notification',
  [OP.excesses]: 'excesses',
  [OP.jettonBurn]: 'jetton burn',
};

function describe(op: number): string {
  return `${NAMES[op] ?? 'body'} (${opHex(op)})`;
}
