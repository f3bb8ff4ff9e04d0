// API v3 scalar encodings (ton-index-go/index/models/types.go, convert.go): hashes are standard
// base64 with padding, addresses raw with upper-case hex, opcodes `0x%08x`, shards `%X` of the u64,
// 64-bit integers as decimal strings.
import type { AccountId, HashHex } from '../../../chain/model.js';
import type { V3Address, V3Hash } from './types.js';

// one scratch buffer instead of a Buffer per hash; write() stops at the first bad pair as Buffer.from(hex, 'hex') does
const scratch = Buffer.alloc(32);
export const v3Hash = (hex: HashHex): V3Hash =>
  hex.length > 64 ? Buffer.from(hex, 'hex').toString('base64') : scratch.toString('base64', 0, scratch.write(hex, 0, 'hex'));

export const v3HashOfBytes = (bytes: Uint8Array): V3Hash => Buffer.from(bytes).toString('base64');

export function v3Address(account: AccountId): V3Address {
  const colon = account.indexOf(':');
  return account.slice(0, colon + 1) + account.slice(colon + 1).toUpperCase();
}

export const v3Opcode = (opcode: number): string => '0x' + (opcode >>> 0).toString(16).padStart(8, '0');

/** `%X` of the u64 shard id (no leading zeros: `8000000000000000`, `C000000000000000`). */
const shards = new Map<string, string>();
export function v3Shard(shardHex: string): string {
  let out = shards.get(shardHex);
  if (out === undefined) {
    out = BigInt('0x' + shardHex).toString(16).toUpperCase();
    // a chain has a few shards; the bound only guards against junk input
    if (shards.size < 1_024) shards.set(shardHex, out);
  }
  return out;
}

export const dec = (v: bigint | number): string => v.toString();
