// Shard ids (u64 with the terminating tag bit, as in ShardDescr and block ids) and their arithmetic.
import type { ShardIdent } from '@ton/core';

export const FULL_SHARD = 1n << 63n;
const U64 = (1n << 64n) - 1n;

export const lowBit = (shard: bigint): bigint => shard & -shard;

/** The two halves of a shard: [left (prefix bit 0), right (prefix bit 1)]. */
export function childShards(shard: bigint): [bigint, bigint] {
  const half = lowBit(shard) >> 1n;
  if (half === 0n) throw new Error(`shard ${shardHex(shard)} cannot split further`);
  return [shard - half, shard + half];
}

/** The shard two siblings merge into (`(s − lowbit) | (lowbit << 1)`). */
export function parentShard(shard: bigint): bigint {
  const low = lowBit(shard);
  if (shard === FULL_SHARD) throw new Error('the full shard has no parent');
  return ((shard - low) | (low << 1n)) & U64;
}

export function siblingShard(shard: bigint): bigint {
  const [left, right] = childShards(parentShard(shard));
  return shard === left ? right : left;
}

/** Whether an account (its 256-bit address) lies in the shard. */
export function shardContains(shard: bigint, address: bigint): boolean {
  const low = lowBit(shard);
  const bits = 64n - BigInt(low.toString(2).length); // prefix length
  if (bits === 0n) return true;
  const top = address >> (256n - bits);
  return top === shard >> (64n - bits);
}

export function shardIdent(workchain: number, shard: bigint): ShardIdent {
  const low = lowBit(shard);
  return { workchainId: workchain, shardPrefixBits: 64 - low.toString(2).length, shardPrefix: shard - low };
}

export function shardHex(shard: bigint): string {
  return shard.toString(16).padStart(16, '0');
}

export function parseShard(shard: string | bigint): bigint {
  return typeof shard === 'bigint' ? shard : BigInt(`0x${shard}`);
}
