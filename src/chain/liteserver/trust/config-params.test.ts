import { Cell } from '@ton/core';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cellAt, proveOnly, replaceAt } from '../../../../test/support/merkle.js';
import { catchainConfigCell, configDictCell, simplexConsensusConfigCell, testValidators, validatorSetCell } from '../testing/validator-keys.js';
import {
  configOfKeyBlock,
  configOfMasterchainState,
  configParam,
  parseCatchainConfig,
  parseNewConsensusConfigAll,
  parseValidatorSet,
  readTrustConfig,
} from './config-params.js';
import { unwrapMerkleProof } from './merkle.js';
import { mcStateExtraOf, readMcStateInfo, readShardState } from './state.js';
import { mainValidators, validatorSetHash } from '../../validators/set.js';
import { proofFailure } from '../../../../test/support/proofs.js';

const fixtures = new URL('../../../../test/fixtures/', import.meta.url);
const stateOf = (path: string) => unwrapMerkleProof(Cell.fromBoc(readFileSync(new URL(path, fixtures)))[0]!, 'config');


describe('config params 34, 28 and 30 from real config proofs', () => {
  it('mainnet 65466080 (after the consensus upgrade): 400 validators, 100 main, catchain_config_new, simplex', () => {
    const trust = readTrustConfig(configOfMasterchainState(stateOf('mainnet/config/tongo-config_proof_65466080.boc')));
    const vs = trust.validators;
    expect(vs).toMatchObject({ kind: 'validators_ext', total: 400, main: 100 });
    expect(vs.list.map((v) => v.index)).toEqual([...Array(400).keys()]);
    expect(new Set(vs.list.map((v) => v.publicKey.toString('hex'))).size).toBe(400);
    for (const v of vs.list) {
      expect(v.publicKey).toHaveLength(32);
      expect(v.adnlAddr).toHaveLength(32);
      expect(v.weight > 0n).toBe(true);
    }
    expect(vs.totalWeight).toBe(vs.list.reduce((s, v) => s + v.weight, 0n));
    expect(vs.utimeUntil > vs.utimeSince).toBe(true);
    expect(trust.catchain).toMatchObject({ kind: 'catchain_config_new', shuffleMcValidators: true });
    expect(trust.catchain.mcCatchainLifetime).toBeGreaterThan(0);
    expect(trust.catchain.shardValidatorsNum).toBeGreaterThan(0);
    if (typeof trust.consensus === 'string') throw new Error(`param 30 is ${trust.consensus}`);
    for (const c of [trust.consensus.mc, trust.consensus.shard]) {
      expect(c).toMatchObject({ kind: 'simplex_config_v2' });
      if (c?.kind !== 'simplex_config_v2') continue;
      expect(c.slotsPerLeaderWindow).toBeGreaterThanOrEqual(1);
      expect(c.noncriticalParams.size).toBeGreaterThan(0);
    }
  });

  it('mainnet 33651872 (before the upgrade): 319 validators, 100 main, no param 30', () => {
    const trust = readTrustConfig(configOfMasterchainState(stateOf('mainnet/config/tongo-config_proof_33651872.boc')));
    expect(trust.validators).toMatchObject({ kind: 'validators_ext', total: 319, main: 100 });
    expect(trust.catchain).toMatchObject({ kind: 'catchain_config_new', shuffleMcValidators: true });
    expect(trust.consensus).toBe('absent');
  });

  it('the testnet proof with a malformed param 79 parses params 34 and 28 without crashing', () => {
    const config = configOfMasterchainState(stateOf('testnet/tongo-config_proof_4324374.boc'));
    expect(configParam(config, 79)).not.toBeNull();
    const trust = readTrustConfig(config);
    expect(trust.validators).toMatchObject({ kind: 'validators_ext', total: 15, main: 15 });
    expect(trust.catchain.shuffleMcValidators).toBe(true);
    expect(trust.consensus).toBe('absent');
  });
});

describe('the masterchain group as the node computes it, checked on real states', () => {
  // McStateExtra.validator_info holds the hash of the masterchain group of its catchain session; the node
  // writes it with cc_seqno 0 in the hashed bytes (validate-query.cpp) while the shuffle uses the real one.
  it.each([
    ['mainnet/config/tongo-config_proof_65466080.boc', 100, 400],
    ['mainnet/config/tongo-config_proof_33651872.boc', 100, 319],
    ['testnet/tongo-config_proof_4324374.boc', 15, 15],
  ])('%s: the shuffled main validators reproduce validator_list_hash_short', (file, main, total) => {
    const extra = mcStateExtraOf(readShardState(stateOf(file), 'state'), 'state');
    const info = readMcStateInfo(extra.info, 'state');
    const trust = readTrustConfig(extra.configParams);
    expect(trust.validators).toMatchObject({ main, total });
    const group = mainValidators(trust.validators, trust.catchain, info.catchainSeqno);
    expect(group).toHaveLength(main);
    expect(validatorSetHash(0, group)).toBe(info.validatorListHashShort);
    const unshuffled = mainValidators(trust.validators, { ...trust.catchain, shuffleMcValidators: false }, info.catchainSeqno);
    expect(validatorSetHash(0, unshuffled)).not.toBe(info.validatorListHashShort);
    const otherSession = mainValidators(trust.validators, trust.catchain, info.catchainSeqno + 1);
    expect(validatorSetHash(0, otherSession)).not.toBe(info.validatorListHashShort);
  });
});

describe('parsing refuses what the proof does not prove', () => {
  it('param 28 under a pruned branch of a real testnet key block is not proven, never absent', () => {
    const testnet = JSON.parse(readFileSync(new URL('testnet/validator_signatures_4350531.json', fixtures), 'utf8'));
    const block = Cell.fromBoc(Buffer.from(testnet.data[0].boc[0], 'hex'))[0]!;
    const config = configOfKeyBlock(block);
    expect(configParam(config, 34)).not.toBeNull();
    expect(proofFailure(() => configParam(config, 28))).toMatchObject({ check: 'config.param28', failure: 'not-proven' });
    expect(proofFailure(() => readTrustConfig(config))).toMatchObject({ check: 'config.param28', failure: 'not-proven' });
  });

  it('a validator list with a pruned branch is not proven (a dropped validator would change the group)', () => {
    const validators = testValidators(8, 'pruned-list');
    const p34 = validatorSetCell(validators);
    const listRoot = cellAt(p34, [0]);
    const keep = new Set([p34.hash(0).toString('hex'), listRoot.hash(0).toString('hex'), cellAt(listRoot, [0]).hash(0).toString('hex')]);
    const proven = proveOnly(p34, (c) => keep.has(c.hash(0).toString('hex'))).refs[0]!;
    expect(proven.hash(0).equals(p34.hash(0))).toBe(true);
    expect(proofFailure(() => parseValidatorSet(proven))).toMatchObject({ check: 'config.param34', failure: 'not-proven' });
    const dict = configDictCell(new Map([[34, proven], [28, catchainConfigCell()]]));
    expect(proofFailure(() => readTrustConfig(dict))).toMatchObject({ failure: 'not-proven' });
  });

  it('a set whose total or total_weight disagrees with its list is malformed', () => {
    const validators = testValidators(5, 'malformed');
    const p34 = validatorSetCell(validators);
    const bits = (c: Cell, start: number, width: number, value: bigint) =>
      replaceAt(c, [], (old) => {
        const s = old.beginParse();
        const head = s.loadBits(start);
        s.skip(width);
        const b = Cell.EMPTY.asBuilder().storeBits(head).storeUint(value, width).storeBits(s.loadBits(s.remainingBits));
        for (const r of old.refs) b.storeRef(r);
        return b.endCell();
      });
    expect(proofFailure(() => parseValidatorSet(bits(p34, 8 + 64, 16, 6n)))).toMatchObject({ failure: 'malformed' }); // total 6 of 5
    expect(proofFailure(() => parseValidatorSet(bits(p34, 8 + 64 + 32, 64, 1n)))).toMatchObject({ failure: 'malformed' }); // total_weight
    expect(proofFailure(() => parseValidatorSet(bits(p34, 8 + 64 + 16, 16, 0n)))).toMatchObject({ failure: 'malformed' }); // main 0
  });
});

describe('the test-key cell builders round-trip through the parsers', () => {
  it('validators_ext and the older validators#11 with validator#53', () => {
    const validators = testValidators(6, 'round-trip', (i) => BigInt(100 + i));
    for (const ext of [true, false]) {
      const vs = parseValidatorSet(validatorSetCell(validators, { main: 4, ext, utimeSince: 10, utimeUntil: 20 }));
      expect(vs).toMatchObject({ kind: ext ? 'validators_ext' : 'validators', total: 6, main: 4, utimeSince: 10, utimeUntil: 20, totalWeight: 615n });
      expect(vs.list.map((v) => [v.index, v.publicKey.toString('hex'), v.weight, v.adnlAddr?.toString('hex') ?? null])).toEqual(
        validators.map((v) => [v.index, v.publicKey.toString('hex'), v.weight, ext ? v.adnlAddr.toString('hex') : null]),
      );
    }
  });

  it('catchain configs c1 and c2, and param 30', () => {
    expect(parseCatchainConfig(catchainConfigCell({ kind: 'catchain_config', mcCatchainLifetime: 11 }))).toMatchObject({
      kind: 'catchain_config',
      shuffleMcValidators: false,
      mcCatchainLifetime: 11,
    });
    expect(parseCatchainConfig(catchainConfigCell({ shuffleMcValidators: false, shardValidatorsNum: 9 }))).toMatchObject({
      kind: 'catchain_config_new',
      shuffleMcValidators: false,
      shardValidatorsNum: 9,
    });
    const p30 = parseNewConsensusConfigAll(simplexConsensusConfigCell(8, { 0: 400, 13: 300 }));
    expect(p30.mc).toMatchObject({ kind: 'simplex_config_v2', slotsPerLeaderWindow: 8 });
    expect(p30.mc?.kind === 'simplex_config_v2' && [...p30.mc.noncriticalParams]).toEqual([[0, 400], [13, 300]]);
  });
});
