// What the `operations` filter matches, read from the logged event alone (docs/ARCHITECTURE.md,
// "Filters are functions of the event"), so live delivery and a replay after Last-Event-ID decide
// alike whatever was connected before:
// - a transaction: the opcode of its inbound message;
// - a trace: the inbound opcodes of its transactions, recorded by the follower on the trace event;
// - a pending message: its own body's opcode and those of every message of its emulated trace,
//   recorded where it was admitted; a source that cannot emulate leaves its own body's opcode only.
import { Cell } from '@ton/core';
import { decodeMessage } from '../chain/decode/index.js';
import type { PendingMessage, TraceModel } from '../chain/model.js';

const NONE: readonly number[] = [];

/** A trace logged before opcodes were recorded on it carries none. */
export function traceOpcodes(trace: TraceModel): readonly number[] {
  return trace.opcodes ?? NONE;
}

/** The opcodes a pending message will carry; decodes its own body only when nothing was recorded. */
export function pendingOpcodes(message: PendingMessage): readonly number[] {
  if (message.opcodes) return message.opcodes;
  try {
    const op = decodeMessage(Cell.fromBoc(Buffer.from(message.boc, 'base64'))[0]!).opcode;
    return op === null ? NONE : [op];
  } catch {
    return NONE;
  }
}
