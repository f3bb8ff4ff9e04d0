// API v3 scalar encodings (ton-index-go/index/models/types.go, convert.go): hashes are standard
// base64 with padding, addresses raw with upper-case hex, opcodes `0x%08x`, shards `%X` of the u64,
// 64-bit integers as decimal strings.
import type { AccountId, HashHex } from '../../../chain/model.js';
import type { V3Address, V3Hash } from './types.js';

export const v3Hash = (hex: HashHex): V3Hash => Buffer.from(hex, 'hex').toString('base64');

export const v3HashOfBytes = (bytes: Uint8Array): V3Hash => Buffer.from(bytes).toString('base64');

export function v3Address(account: AccountId): V3Address {
  const colon = account.indexOf(':');
  return account.slice(0, colon + 1) + account.slice(colon + 1).toUpperCase();
}

export const v3Opcode = (opcode: number): string => '0x' + (opcode >>> 0).toString(16).padStart(8, '0');

/** `%X` of the u64 shard id (no leading zeros: `8000000000000000`, `C000000000000000`). */
export const v3Shard = (shardHex: string): string => BigInt('0x' + shardHex).toString(16).toUpperCase();

export const dec = (v: bigint | number): string => v.toString();
