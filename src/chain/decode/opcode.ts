// Opcodes the decoders know (compat.md §7, TEP-74) and the opcode of a body: its first 32 bits.
import type { Cell } from '@ton/core';
import type { Reader } from '../cell/reader.js';

export const OP = {
  textComment: 0x00000000,
  encryptedComment: 0x2167da4b,
  bounced: 0xffffffff,
  /** `new_bounce_body#fffffffe` (global version 12, ton commit 126ac76a), sent when the original asked for it. */
  newBounced: 0xfffffffe,
  jettonTransfer: 0x0f8a7ea5,
  jettonInternalTransfer: 0x178d4519,
  jettonNotify: 0x7362d09c,
  excesses: 0xd53276db,
  jettonBurn: 0x595f07bc,
  provideWalletAddress: 0x2c76b973,
  invoicePayload: 0x7aa23eb5,
} as const;

/** First 32 bits of the unread part of `r`, without consuming them; null when fewer remain. */
export function peekOpcode(r: Reader): number | null {
  return r.remainingBits >= 32 ? r.clone().uint(32) : null;
}

/** First 32 bits of a body cell, or null when the body is shorter. */
export function readOpcode(body: Cell): number | null {
  const bits = body.bits;
  if (bits.length < 32) return null;
  const head = bits.subbuffer(0, 32);
  if (head) return head.readUInt32BE(0);
  let op = 0;
  for (let i = 0; i < 32; i++) op = op * 2 + (bits.at(i) ? 1 : 0);
  return op;
}

/** `0x0f8a7ea5` style, for messages and reasons. */
export function opHex(op: number): string {
  return `0x${op.toString(16).padStart(8, '0')}`;
}
