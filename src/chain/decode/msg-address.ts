// MsgAddress (block.tlb) read straight into the raw account form `<wc>:<64 hex>`.
import type { AccountId } from '../model.js';
import type { Reader } from '../cell/reader.js';
import { CellLayoutError } from './reader.js';

/** `anycast_info$_ depth:(#<= 30) rewrite_pfx:(bits depth)`, applied to the address like the node does. */
function readAnycast(r: Reader): { depth: number; prefix: number } | null {
  if (!r.bool()) return null;
  const depth = r.uint(5);
  if (depth < 1 || depth > 30) throw new CellLayoutError(`anycast depth ${depth} outside 1..30`);
  return { depth, prefix: r.uint(depth) };
}

/** Replaces the first `depth` bits of the address with the rewrite prefix. */
function rewrite(address: Buffer, anycast: { depth: number; prefix: number }): Buffer {
  const out = Buffer.from(address);
  for (let i = 0; i < anycast.depth; i++) {
    const bit = (anycast.prefix >>> (anycast.depth - 1 - i)) & 1;
    const mask = 0x80 >> (i & 7);
    out[i >> 3] = bit ? out[i >> 3]! | mask : out[i >> 3]! & ~mask;
  }
  return out;
}

/**
 * Reads any MsgAddress. Returns the raw account id for `addr_std` (and for `addr_var` with a 256-bit
 * address), null for `addr_none` and `addr_extern` (which name no account).
 */
export function readMsgAddress(r: Reader): AccountId | null {
  const tag = r.uint(2);
  if (tag === 0) return null; // addr_none$00
  if (tag === 1) {
    // addr_extern$01 len:(## 9) external_address:(bits len)
    r.skip(r.uint(9));
    return null;
  }
  const anycast = readAnycast(r);
  if (tag === 2) {
    // addr_std$10 anycast workchain_id:int8 address:bits256
    const wc = r.int(8);
    if (!anycast) return `${wc}:${r.hex(256)}`;
    return `${wc}:${rewrite(r.bytesOf(32), anycast).toString('hex')}`;
  }
  // addr_var$11 anycast addr_len:(## 9) workchain_id:int32 address:(bits addr_len)
  const len = r.uint(9);
  const wc = r.int(32);
  if (len !== 256) {
    r.skip(len);
    throw new CellLayoutError(`addr_var with a ${len}-bit address is not an account id`);
  }
  const hash = r.bytesOf(32);
  return `${wc}:${(anycast ? rewrite(hash, anycast) : hash).toString('hex')}`;
}

/** A MsgAddressInt that must name an account. */
export function readAccountAddress(r: Reader): AccountId {
  const tag = r.clone().uint(2);
  if (tag < 2) throw new CellLayoutError(`expected an internal address, found tag ${tag.toString(2).padStart(2, '0')}`);
  return readMsgAddress(r)!;
}
