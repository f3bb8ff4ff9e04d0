// Account ids on input: the raw form and every user-friendly form (compat.md §1), normalised to the
// raw lowercase form `<wc>:<64 hex>` that everything stores and matches on.
import { Address } from '@ton/core';
import type { AccountId } from './model.js';

/** Input that is not a TON account address; the message says what is wrong with it. */
export class InvalidAddressError extends Error {
  constructor(
    readonly input: string,
    reason: string,
  ) {
    super(`invalid address ${JSON.stringify(input.length > 80 ? `${input.slice(0, 80)}…` : input)}: ${reason}`);
    this.name = 'InvalidAddressError';
  }
}

const RAW = /^(-?\d{1,3}):([0-9a-fA-F]{64})$/;
const FRIENDLY = /^[A-Za-z0-9+/_-]{48}$/;
const BOUNCEABLE_TAG = 0x11;
const NON_BOUNCEABLE_TAG = 0x51;
const TEST_ONLY_FLAG = 0x80;

/** CRC-16/XMODEM, the checksum of user-friendly addresses. */
export function crc16(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

export interface FriendlyAddressInfo {
  account: AccountId;
  bounceable: boolean;
  testOnly: boolean;
}

/** Text near enough to a user-friendly address to be one with a typo: say which typo, not the form. */
const NEAR_FRIENDLY_LENGTH = { min: 46, max: 50 };
const FRIENDLY_CHAR = /[A-Za-z0-9+/_-]/;

/** Why text of about the right length is not a user-friendly address: a character not used, or a length off by some. */
function friendlyTypo(b64: string): string | null {
  const chars = [...b64];
  if (chars.length < NEAR_FRIENDLY_LENGTH.min || chars.length > NEAR_FRIENDLY_LENGTH.max) return null;
  const bad = chars.findIndex((c) => !FRIENDLY_CHAR.test(c));
  if (bad >= 0) return `character ${JSON.stringify(chars[bad])} at position ${bad + 1} is not used in addresses (a typo?)`;
  const off = chars.length - 48;
  return `has ${chars.length} characters where a user-friendly address has 48: ${Math.abs(off)} ${off < 0 ? 'missing' : 'too many'}`;
}

function parseFriendly(input: string, text: string): FriendlyAddressInfo {
  // A `+` of standard base64 arrives as a space when the address sat unescaped in a query string.
  const b64 = text.replace(/ /g, '+');
  if (!FRIENDLY.test(b64)) {
    throw new InvalidAddressError(input, friendlyTypo(b64) ?? 'expected the raw form <workchain>:<64 hex> or a 48-character user-friendly address');
  }
  if (/[+/]/.test(b64) && /[-_]/.test(b64)) {
    throw new InvalidAddressError(input, 'mixes base64 and base64url characters');
  }
  const data = Buffer.from(b64.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (data.length !== 36) throw new InvalidAddressError(input, 'user-friendly address must decode to 36 bytes');
  const expected = crc16(data.subarray(0, 34));
  if (data.readUInt16BE(34) !== expected) {
    // Right length and alphabet: what fails is the CRC16 the address carries of itself, so a character is mistyped.
    throw new InvalidAddressError(input, 'checksum mismatch: a character is mistyped (the address carries a checksum of itself, and it does not match)');
  }
  const tag = data[0]! & ~TEST_ONLY_FLAG;
  if (tag !== BOUNCEABLE_TAG && tag !== NON_BOUNCEABLE_TAG) {
    throw new InvalidAddressError(input, `unknown tag 0x${data[0]!.toString(16)}`);
  }
  const workchain = data.readInt8(1);
  return {
    account: `${workchain}:${data.subarray(2, 34).toString('hex')}`,
    bounceable: tag === BOUNCEABLE_TAG,
    testOnly: (data[0]! & TEST_ONLY_FLAG) !== 0,
  };
}

/** Parses any address form into its raw form and the flags a friendly form carried (raw: bounceable, not test-only). */
export function parseAddressInfo(input: string): FriendlyAddressInfo {
  if (typeof input !== 'string') throw new InvalidAddressError(String(input), 'not a string');
  const text = input.trim();
  if (text.length === 0) throw new InvalidAddressError(input, 'empty');
  const raw = RAW.exec(text);
  if (raw) {
    const workchain = Number(raw[1]);
    if (workchain < -128 || workchain > 127) {
      throw new InvalidAddressError(input, `workchain ${workchain} outside -128..127`);
    }
    return { account: `${workchain}:${raw[2]!.toLowerCase()}`, bounceable: true, testOnly: false };
  }
  if (text.includes(':')) throw new InvalidAddressError(input, 'raw form must be <workchain>:<64 hex digits>');
  return parseFriendly(input, text);
}

/** Any address form → raw lowercase `<wc>:<64 hex>`. Throws InvalidAddressError. */
export function parseAccountId(input: string): AccountId {
  return parseAddressInfo(input).account;
}

/** Like parseAccountId, null instead of throwing. */
export function tryParseAccountId(input: string): AccountId | null {
  try {
    return parseAccountId(input);
  } catch {
    return null;
  }
}

export interface FriendlyOptions {
  bounceable?: boolean;
  testOnly?: boolean;
  urlSafe?: boolean;
}

/** Raw (or any) address → user-friendly form; defaults: bounceable, mainnet, url-safe. */
export function toFriendly(account: AccountId, options: FriendlyOptions = {}): string {
  const [wc, hash] = parseAccountId(account).split(':') as [string, string];
  return new Address(Number(wc), Buffer.from(hash, 'hex')).toString({
    bounceable: options.bounceable ?? true,
    testOnly: options.testOnly ?? false,
    urlSafe: options.urlSafe ?? true,
  });
}

/** @ton/core Address → raw lowercase account id. */
export function addressToRaw(address: Address): AccountId {
  return `${address.workChain}:${address.hash.toString('hex')}`;
}

/** Raw account id → @ton/core Address (for builders). */
export function accountToAddress(account: AccountId): Address {
  const [wc, hash] = parseAccountId(account).split(':') as [string, string];
  return new Address(Number(wc), Buffer.from(hash, 'hex'));
}
