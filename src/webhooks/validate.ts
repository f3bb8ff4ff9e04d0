// Input checks of the webhooks API, each error naming the field.
import { InvalidAddressError, parseAccountId } from '../chain/address.js';
import { badRequest } from '../errors.js';

const OPCODE = /^0[xX][0-9a-fA-F]{1,8}$/;

/** `0x` + 1 to 8 hex digits (TonAPI's own example is `0x123456`) → the u32 opcode. */
export function parseOpcode(text: string, field = 'opcode'): number {
  if (!OPCODE.test(text)) throw badRequest(`${field} must be 0x followed by 1 to 8 hex digits (e.g. 0x0f8a7ea5), got ${JSON.stringify(text.slice(0, 40))}`, field);
  return parseInt(text.slice(2), 16);
}

export function formatOpcode(opcode: number): string {
  return `0x${opcode.toString(16).padStart(8, '0')}`;
}

/** Any address form → raw; the error names `field`. */
export function accountInput(text: string, field: string): string {
  try {
    return parseAccountId(text);
  } catch (err) {
    if (err instanceof InvalidAddressError) throw badRequest(`${field}: ${err.message}`, field);
    throw err;
  }
}

/** A u64 logical time given as a JSON integer or a decimal string. */
export function ltInput(value: unknown, field: string): bigint {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,20}$/.test(text) || BigInt(text) >= 1n << 64n) {
    throw badRequest(`${field} must be a logical time: a non-negative integer below 2^64`, field);
  }
  return BigInt(text);
}

export const iso = (ms: number) => new Date(ms).toISOString();
