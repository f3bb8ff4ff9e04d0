// The devnet's own validators: a key set derived from a secret seed kept in the chain's storage, named in
// config params 34 (the set) and 28 (the catchain config) of its key blocks, signing every masterchain
// block. A rotation moves to the next set: the key block naming it is signed by the old set, the blocks
// after it by the new one in the next catchain session, as on a real network.
import { randomBytes } from 'node:crypto';
import { beginCell, type Cell } from '@ton/core';
import {
  catchainConfigCell, configDictCell, deriveValidators, masterchainSigners, signOrdinary, validatorSetCell, type ValidatorKey,
} from '../blocks/validators.js';
import type { BlockIdExt, SignatureSet } from '../liteserver/tl/lite-types.js';

/** How many validators a devnet set has (all of them sign masterchain blocks). */
export const DEVNET_VALIDATOR_COUNT = 4;
/** The config contract's address (param 0) in the devnet's masterchain. */
export const DEVNET_CONFIG_ADDRESS = Buffer.alloc(32, 0x55);

/** What the storage keeps to know the current set again after a restart. */
export interface ValidatorEpoch {
  /** Secret of this devnet's keys (hex); every set derives from it. */
  seed: string;
  /** Index of the current set (0 from the zero state, +1 per rotation). */
  set: number;
  /** Catchain session the current set signs in. */
  ccSeqno: number;
}

export function firstEpoch(): ValidatorEpoch {
  return { seed: randomBytes(32).toString('hex'), set: 0, ccSeqno: 0 };
}

/** The epoch after a rotation: the next set, in the next session. */
export function rotated(epoch: ValidatorEpoch): ValidatorEpoch {
  return { seed: epoch.seed, set: epoch.set + 1, ccSeqno: epoch.ccSeqno + 1 };
}

export class DevnetValidators {
  readonly keys: ValidatorKey[];
  readonly signers: ValidatorKey[];
  /** Short hash of the signing group (gen_validator_list_hash_short of the blocks it signs). */
  readonly setHash: number;

  constructor(readonly epoch: ValidatorEpoch) {
    this.keys = deriveValidators(DEVNET_VALIDATOR_COUNT, `tonwatch-devnet/${epoch.seed}/set/${epoch.set}`);
    const group = masterchainSigners(this.keys, epoch.ccSeqno);
    this.signers = group.signers;
    this.setHash = group.setHash >>> 0;
  }

  /** The ConfigParams dictionary naming this set: params 0, 28 and 34. */
  config(): Cell {
    return configDictCell(
      new Map([
        [0, beginCell().storeBuffer(DEVNET_CONFIG_ADDRESS).endCell()],
        [28, catchainConfigCell({ shuffleMcValidators: true })],
        [34, validatorSetCell(this.keys)],
      ]),
    );
  }

  sign(block: BlockIdExt): SignatureSet {
    return signOrdinary(block, this.signers, this.epoch.ccSeqno, this.setHash);
  }
}
