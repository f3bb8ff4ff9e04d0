// The first check of a submitted message on every chain source (the bytes are a BoC with one root),
// and the normalised external message hash that keys a trace across finality levels (TEP-467).
import { Address, beginCell, Cell, loadMessage, storeMessage } from '@ton/core';
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

/** The normalised hash of a decoded inbound external message (from its destination and body BoC). */
export function normalizedHashOfModel(message: MessageModel): HashHex | null {
  if (message.type !== 'external-in' || message.destination === null) return null;
  return normalizedExternalHash(message.destination, Cell.fromBase64(message.bodyBoc));
}
