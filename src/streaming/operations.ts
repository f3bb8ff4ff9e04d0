// The `operations` filter of the streams (compat.md §2): operation names of tongo's message ABI
// (the names TonAPI clients send) or `0x` + exactly 8 hex digits, matched against the first 32
// bits of message bodies. An unknown name or a malformed opcode is an error, never a filter that
// silently matches nothing.
import { TONGO_OPERATIONS } from './operation-names.js';

/** Operation names clients may use, with the opcodes each names (generated: operation-names.ts). */
export const OPERATION_NAMES: Readonly<Record<string, readonly number[]>> = TONGO_OPERATIONS;

/**
 * Names of tongo's ABI that carry no opcode: a wallet's signed external message starts with its
 * signature, so no filter on 32 bits can tell it; refused with a reason rather than matching nothing.
 */
const WITHOUT_OPCODE = new Set(
  ['WalletSignedV3', 'WalletSignedV4', 'HighloadWalletSignedV2', 'HighloadWalletSignedV3', 'PreprocessedWalletSignedV2', 'Tonkeeper2FaSignedExternal'].map((n) =>
    n.toLowerCase(),
  ),
);

const byLowerName = new Map(Object.entries(OPERATION_NAMES).map(([name, ops]) => [name.toLowerCase(), ops]));
const HEX_OPCODE = /^0[xX][0-9a-fA-F]{8}$/;

/** A set of opcodes to match; null means "every operation". */
export type OperationFilter = ReadonlySet<number> | null;

export class OperationError extends Error {
  constructor(readonly item: string, reason: string) {
    super(reason);
    this.name = 'OperationError';
  }
}

/** One operation: a name (case-insensitive) or a hex opcode; the opcodes it stands for. */
export function parseOperation(item: string): readonly number[] {
  const text = item.trim();
  if (HEX_OPCODE.test(text)) return [Number.parseInt(text.slice(2), 16)];
  if (/^0[xX]/.test(text)) {
    throw new OperationError(item, `invalid opcode '${item}': expected 0x and exactly 8 hex digits`);
  }
  const ops = byLowerName.get(text.toLowerCase());
  if (ops !== undefined) return ops;
  if (WITHOUT_OPCODE.has(text.toLowerCase())) {
    throw new OperationError(item, `operation '${item}' is a wallet's signed external message, which has no opcode to match`);
  }
  throw new OperationError(
    item,
    `unknown operation '${item}': use 0x and 8 hex digits, or an operation name of tongo's message ABI (e.g. JettonTransfer, NftTransfer, TextComment)`,
  );
}

/** A comma list (or list of comma lists); empty input means no filter. Throws OperationError. */
export function parseOperations(input: string | readonly string[] | undefined | null): OperationFilter {
  if (input === undefined || input === null) return null;
  const items = (typeof input === 'string' ? [input] : input).flatMap((s) => s.split(','));
  if (items.length === 1 && items[0]!.trim() === '') return null;
  const ops = new Set<number>();
  for (const item of items) {
    if (item.trim() === '') throw new OperationError(item, 'empty operation in the list');
    for (const op of parseOperation(item)) ops.add(op);
  }
  return ops;
}

/** Whether an opcode (null = the body had fewer than 32 bits) passes a filter. */
export function matchesOperation(filter: OperationFilter, opcode: number | null | undefined): boolean {
  return filter === null || (opcode != null && filter.has(opcode));
}

/** Whether any of `present` passes a filter. */
export function matchesAnyOperation(filter: OperationFilter, present: readonly number[]): boolean {
  if (filter === null) return true;
  for (const op of present) if (filter.has(op)) return true;
  return false;
}
