// The first check of a submitted message on every chain source (the bytes are a BoC with one root),
// and the normalised external message hash that keys a trace across finality levels (TEP-467).
import { createHash } from 'node:crypto';
import { Address, beginCell, Cell, loadMessage, storeMessage } from '@ton/core';
import { bocRoot } from './cell/index.js';
import type { AccountId, HashHex, MessageModel } from './model.js';
import { ChainRejectedError } from './source.js';

/** The one root cell of a submitted BoC; anything else is refused as `invalid_boc`. */
export function singleRootBoc(boc: Buffer): Cell {
  try {
    const roots = Cell.fromBoc(boc);
    if (roots.length !== 1) throw new Error(`expected one root cell, got ${roots.length}`);
    return roots[0]!;
  } catch (err) {
    throw new ChainRejectedError(`invalid message BoC: ${err instanceof Error ? err.message : String(err)}`, 'invalid_boc');
  }
}

/**
 * TEP-467's normalised hash of an external-in message: the message rebuilt with `src` = addr_none,
 * `import_fee` = 0, no `init` and the body in a reference, then hashed. Only the destination and the
 * body survive, so two serialisations of one signed message share it (`trace_external_hash_norm`).
 */
export function normalizedExternalHash(destination: AccountId, body: Cell): HashHex {
  const normalised = beginCell()
    .store(
      storeMessage(
        { info: { type: 'external-in', src: null, dest: Address.parseRaw(destination), importFee: 0n }, init: null, body },
        { forceRef: true },
      ),
    )
    .endCell();
  return normalised.hash().toString('hex');
}

/** The normalised hash of a whole external-in Message cell; null for any other kind of message. */
export function normalizedHashOfMessage(message: Cell): HashHex | null {
  const parsed = loadMessage(message.beginParse());
  if (parsed.info.type !== 'external-in') return null;
  return normalizedExternalHash(parsed.info.dest.toRawString(), parsed.body);
}

/**
 * The normalised hash of a decoded inbound external message (from its destination and body BoC). The
 * streams ask it for every trace they send, so it hashes the one normalised cell itself, from the body's
 * hash and depth (the cell layer's parse), instead of rebuilding the message with @ton/core's builder.
 */
export function normalizedHashOfModel(message: MessageModel): HashHex | null {
  if (message.type !== 'external-in' || message.destination === null) return null;
  const body = messageBody(message);
  // a body with a level (Merkle parts) changes the cell's descriptor and hashes: the builder's way then
  if (body.levelMask !== 0) return normalizedExternalHash(message.destination, Cell.fromBase64(message.bodyBoc));
  return normalizedCellHash(message.destination, body.hash, body.depth);
}

/** What hashing a message's body cell gives. */
export interface MessageBody {
  /** Representation hash of the body's root cell. */
  hash: Buffer;
  depth: number;
  levelMask: number;
}

/**
 * Body hashes by message hash. A message is read twice, by its sender's and its receiver's transaction
 * (mostly in one block), and a trace's external message once more for its normalised hash. Two
 * generations, the older dropped whole when the newer fills (deleting a Map's oldest entries one by one
 * makes each next deletion walk the holes they left).
 */
let bodies = new Map<HashHex, MessageBody>();
let olderBodies = new Map<HashHex, MessageBody>();
const BODIES_PER_GENERATION = 20_000;

/** The message's body cell hash, depth and level mask (hashed once per message). */
export function messageBody(message: MessageModel): MessageBody {
  let body = bodies.get(message.hash) ?? olderBodies.get(message.hash);
  if (body === undefined) {
    const root = bocRoot(Buffer.from(message.bodyBoc, 'base64'));
    body = { hash: root.hash(), depth: root.depth(), levelMask: root.levelMask };
    if (bodies.size >= BODIES_PER_GENERATION) {
      olderBodies = bodies;
      bodies = new Map();
    }
    bodies.set(message.hash, body);
  }
  return body;
}

/**
 * Representation hash of the normalised ext_in message cell: 277 data bits — ext_in_msg_info$10,
 * src addr_none$00, dest addr_std$10 without anycast (0) with an 8-bit workchain and 256-bit address,
 * import_fee 0 (4-bit length 0), init nothing (0), body in a reference (1) — and one reference, the
 * body (level 0).
 */
function normalizedCellHash(destination: AccountId, bodyHash: Uint8Array, bodyDepth: number): HashHex {
  const colon = destination.indexOf(':');
  const workchain = Number(destination.slice(0, colon));
  const address = Buffer.from(destination.slice(colon + 1).padStart(64, '0'), 'hex');
  if (!Number.isInteger(workchain) || workchain < -128 || workchain > 127 || address.length !== 32) throw new Error(`not a raw address: ${destination}`);
  // d1 (one reference), d2 (⌊277/8⌋ + ⌈277/8⌉), 35 data bytes, the body's depth and hash
  const repr = Buffer.alloc(2 + 35 + 2 + 32);
  repr[0] = 1;
  repr[1] = 69;
  const data = repr.subarray(2, 37);
  // bits 0..6: 10 00 100, then the workchain's 8 bits from bit 7
  const wc = workchain & 0xff;
  data[0] = 0b10001000 | (wc >> 7);
  data[1] = (wc << 1) & 0xff;
  // the address from bit 15: each byte straddles two data bytes
  for (let i = 0; i < 32; i++) {
    data[1 + i]! |= address[i]! >> 7;
    data[2 + i] = (address[i]! << 1) & 0xff;
  }
  // bit 271: end of the address; bits 271..274 import fee 0000, 275 init 0, 276 body ref 1, then the
  // completion tag 1 at bit 277 (byte 34 holds bits 272..279)
  data[34] = 0b00001100;
  repr.writeUInt16BE(bodyDepth, 37);
  repr.set(bodyHash, 39);
  return createHash('sha256').update(repr).digest('hex');
}
