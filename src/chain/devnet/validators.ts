// The devnet's own validators: a key set derived from a secret seed kept in the chain's storage, named in
// config params 34 (the set) and 28 (the catchain config) of its key blocks, signing every masterchain
// block. A rotation moves to the next set: the key block naming it is signed by the old set, the blocks
// after it by the new one in the next catchain session, as on a real network.
import { randomBytes } from 'node:crypto';
import { defaultConfig } from '@ton/sandbox';
import { beginCell, Cell, Dictionary } from '@ton/core';
import {
  catchainConfigCell, configDictCell, deriveValidators, masterchainSigners, signOrdinary, validatorSetCell, type ValidatorKey,
} from '../blocks/validators.js';
import type { BlockIdExt, SignatureSet } from '../liteserver/tl/lite-types.js';

/** How many validators a devnet set has (all of them sign masterchain blocks). */
export const DEVNET_VALIDATOR_COUNT = 4;
/** The config contract's address (param 0) in the devnet's masterchain. */
export const DEVNET_CONFIG_ADDRESS = Buffer.alloc(32, 0x55);

/**
 * The params that price and limit execution (8 version, 11 and 13–17 rules, 12 the workchains a message may
 * go to, 18 storage, 19–25 gas, limits and forwarding, 29 consensus, 45 precompiled) from the config the devnet's executor runs with
 * (@ton/sandbox's default): in the proven state, so a liteserver client emulates on what the devnet runs.
 */
const EXECUTION_PARAMS = [8, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 29, 45];
const executionParams = (() => {
  const all = Dictionary.loadDirect(Dictionary.Keys.Uint(32), Dictionary.Values.Cell(), Cell.fromBase64(defaultConfig));
  return EXECUTION_PARAMS.flatMap((k) => { const v = all.get(k); return v ? [[k, v] as const] : []; });
})();

/** What the storage keeps to know the current set again after a restart. */
export interface ValidatorEpoch {
  /** Secret of this devnet's keys (hex); every set derives from it. */
  seed: string;
  /** Index of the current set (0 from the zero state, +1 per rotation). */
  set: number;
  /** Catchain session the current set signs in. */
  ccSeqno: number;
  /** Its config carries the execution params: a devnet made before them keeps the config its states were made with. */
  executionParams?: boolean;
}

export function firstEpoch(): ValidatorEpoch {
  return { seed: randomBytes(32).toString('hex'), set: 0, ccSeqno: 0, executionParams: true };
}

/** The epoch after a rotation: the next set, in the next session. */
export function rotated(epoch: ValidatorEpoch): ValidatorEpoch {
  return { seed: epoch.seed, set: epoch.set + 1, ccSeqno: epoch.ccSeqno + 1, ...(epoch.executionParams ? { executionParams: true } : {}) };
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

  /** The ConfigParams dictionary naming this set (params 0, 28 and 34), with the execution params. */
  config(): Cell {
    return configDictCell(
      new Map([
        ...(this.epoch.executionParams ? executionParams : []),
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
