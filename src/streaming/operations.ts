// The `operations` filter of the streams (compat.md §2): operation names or `0x` + exactly 8 hex
// digits, matched against the first 32 bits of an inbound message body. An unknown name or a
// malformed opcode is an error, never a filter that silently matches nothing.
import { OP } from '../chain/decode/opcode.js';

/** Operation names clients may use, with their opcodes (TonAPI's names; compat.md §2 and §7). */
export const OPERATION_NAMES: Readonly<Record<string, number>> = {
  JettonTransfer: OP.jettonTransfer,
  JettonNotify: OP.jettonNotify,
  JettonInternalTransfer: OP.jettonInternalTransfer,
  Excess: OP.excesses,
  JettonBurn: OP.jettonBurn,
  TextComment: OP.textComment,
  EncryptedTextComment: OP.encryptedComment,
};

const byLowerName = new Map(Object.entries(OPERATION_NAMES).map(([name, op]) => [name.toLowerCase(), op]));
const HEX_OPCODE = /^0[xX][0-9a-fA-F]{8}$/;

/** A set of opcodes to match; null means "every operation". */
export type OperationFilter = ReadonlySet<number> | null;

export class OperationError extends Error {
  constructor(readonly item: string, reason: string) {
    super(reason);
    this.name = 'OperationError';
  }
}

/** One operation: a name (case-insensitive) or a hex opcode. */
export function parseOperation(item: string): number {
  const text = item.trim();
  if (HEX_OPCODE.test(text)) return Number.parseInt(text.slice(2), 16);
  if (/^0[xX]/.test(text)) {
    throw new OperationError(item, `invalid opcode '${item}': expected 0x and exactly 8 hex digits`);
  }
  const op = byLowerName.get(text.toLowerCase());
  if (op === undefined) {
    throw new OperationError(item, `unknown operation '${item}': use 0x and 8 hex digits, or one of ${Object.keys(OPERATION_NAMES).join(', ')}`);
  }
  return op;
}

/** A comma list (or list of comma lists); empty input means no filter. Throws OperationError. */
export function parseOperations(input: string | readonly string[] | undefined | null): OperationFilter {
  if (input === undefined || input === null) return null;
  const items = (typeof input === 'string' ? [input] : input).flatMap((s) => s.split(','));
  if (items.length === 1 && items[0]!.trim() === '') return null;
  const ops = new Set<number>();
  for (const item of items) {
    if (item.trim() === '') throw new OperationError(item, 'empty operation in the list');
    ops.add(parseOperation(item));
  }
  return ops;
}

/** Whether an opcode (null = the body had fewer than 32 bits) passes a filter. */
export function matchesOperation(filter: OperationFilter, opcode: number | null | undefined): boolean {
  return filter === null || (opcode != null && filter.has(opcode));
}
