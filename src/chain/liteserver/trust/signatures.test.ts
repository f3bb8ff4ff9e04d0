import { Cell } from '@ton/core';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  catchainConfigCell,
  configDictCell,
  masterchainSigners,
  signOrdinary,
  signSimplex,
  simplexConsensusConfigCell,
  testValidators,
  validatorSetCell,
  type TestValidator,
} from '../testing/validator-keys.js';
import { tlRead, tlWrite } from '../tl/codec.js';
import { signatureSet, type BlockIdExt, type SignatureSet } from '../tl/lite-types.js';
import { configOfKeyBlock, configOfMasterchainState, configParam, parseCatchainConfig, parseValidatorSet, readTrustConfig } from './config-params.js';
import { unwrapMerkleProof } from './merkle.js';
import { nodeIdOf } from '../../validators/payloads.js';
import { readSignedHeader } from './signed-header.js';
import { verifyBlockSignatures, verifySignatureSet, type SignedHeader } from './signatures.js';
import { mainValidators } from '../../validators/set.js';
import { masterchainGroup } from './validators.js';
import { proofFailure } from '../../../../test/support/proofs.js';

const fixtures = new URL('../../../../test/fixtures/', import.meta.url);
const testnet = JSON.parse(readFileSync(new URL('testnet/validator_signatures_4350531.json', fixtures), 'utf8'));
const MC_SHARD = -(1n << 63n);


/** The real testnet forward link: key block 4350480 (its param 34 signs) → key block 4350531 (signed). */
function testnetLink() {
  const entry = (type: string) => testnet.data.find((d: { type: string }) => d.type === type);
  const source = Cell.fromBoc(Buffer.from(entry('set-validators').boc[0], 'hex'))[0]!;
  const dest = Cell.fromBoc(Buffer.from(entry('proof-validators').boc[0], 'hex'))[0]!;
  const signed = entry('proof-validators');
  const target: BlockIdExt = {
    workchain: -1,
    shard: MC_SHARD,
    seqno: Number(signed.id.seqNo),
    rootHash: Buffer.from(signed.id.rootHash, 'hex'),
    fileHash: Buffer.from(signed.id.fileHash, 'hex'),
  };
  // The pruned blocks stand for their root hashes (what a Merkle proof of each would prove).
  expect(source.hash(0).toString('hex')).toBe(testnet.initialValidatorsBlockRootHash);
  expect(dest.hash(0).equals(target.rootHash)).toBe(true);
  const info = readSignedHeader(dest);
  const header: SignedHeader = { genCatchainSeqno: info.genCatchainSeqno, genValidatorListHashShort: info.genValidatorListHashShort };
  const validators = parseValidatorSet(configParam(configOfKeyBlock(source), 34)!);
  // The JSON's key-block proofs carry param 34 only; param 28 comes from the same network's config proof.
  const testnetState = unwrapMerkleProof(Cell.fromBoc(readFileSync(new URL('testnet/tongo-config_proof_4324374.boc', fixtures)))[0]!, 'config');
  const catchain = parseCatchainConfig(configParam(configOfMasterchainState(testnetState), 28)!);
  const set: SignatureSet = {
    kind: 'ordinary',
    catchainSeqno: info.genCatchainSeqno,
    validatorSetHash: info.genValidatorListHashShort | 0,
    signatures: signed.signatures.map((s: { node_id: string; r: string; s: string }) => ({
      nodeIdShort: Buffer.from(s.node_id, 'hex'),
      signature: Buffer.from(s.r + s.s, 'hex'),
    })),
  };
  return { target, header, config: { validators, catchain }, set, info };
}

describe('ordinary signatures of the real testnet key block 4350531', () => {
  it('verifies 12 of 12 signatures, the validator-set hash and the weights', () => {
    const { target, header, config, set, info } = testnetLink();
    expect(info.seqno).toBe(4350531);
    expect(info.keyBlock).toBe(true);
    expect(config.catchain.shuffleMcValidators).toBe(true);
    const group = masterchainGroup(config.validators, config.catchain, header.genCatchainSeqno);
    expect(group.hash).toBe(header.genValidatorListHashShort);
    expect(group.members).toHaveLength(14);
    const report = verifyBlockSignatures(target, header, config, set);
    expect(report.signers).toBe(12);
    expect(report.totalWeight).toBe(config.validators.totalWeight);
    const signedWeight = set.signatures.reduce((s, sig) => s + group.byNodeId.get(sig.nodeIdShort.toString('hex'))!.weight, 0n);
    expect(report.signedWeight).toBe(signedWeight);
    expect(report.signedWeight * 3n > report.totalWeight * 2n).toBe(true);
  });

  it('the node ids in the JSON are sha256 of TL pub.ed25519 of the listed keys', () => {
    for (const v of testnet.initialValidatorsList as { node_id: string; pubkey: string }[]) {
      expect('0x' + nodeIdOf(Buffer.from(v.pubkey.slice(2), 'hex')).toString('hex')).toBe(v.node_id);
    }
  });

  it('without the masterchain shuffle the set hash does not match (param 28 matters)', () => {
    const { target, header, config, set } = testnetLink();
    const unshuffled = { ...config, catchain: { ...config.catchain, shuffleMcValidators: false } };
    expect(proofFailure(() => verifyBlockSignatures(target, header, unshuffled, set))).toMatchObject({ check: 'signatures.set_hash' });
  });

  it('a flipped signature byte fails the signature check', () => {
    const { target, header, config, set } = testnetLink();
    const sig = Buffer.from(set.signatures[5]!.signature);
    sig[10]! ^= 0x01;
    const forged = { ...set, signatures: set.signatures.map((s, i) => (i === 5 ? { ...s, signature: sig } : s)) };
    const e = proofFailure(() => verifyBlockSignatures(target, header, config, forged));
    expect(e.check).toBe('signatures.signature');
    expect(e.message).toContain(set.signatures[5]!.nodeIdShort.toString('hex'));
  });

  it('a signer not in the set (a validator of the next set) fails the signer check', () => {
    const { target, header, config, set } = testnetLink();
    const outsider = (testnet.updateValidators as { node_id: string }[])
      .map((v) => v.node_id.slice(2))
      .find((id) => !set.signatures.some((s) => s.nodeIdShort.toString('hex') === id))!;
    const forged = { ...set, signatures: [...set.signatures.slice(0, 11), { ...set.signatures[11]!, nodeIdShort: Buffer.from(outsider, 'hex') }] };
    expect(proofFailure(() => verifyBlockSignatures(target, header, config, forged))).toMatchObject({ check: 'signatures.signer' });
  });

  it('a duplicated signer fails the duplicate check', () => {
    const { target, header, config, set } = testnetLink();
    const forged = { ...set, signatures: [...set.signatures, set.signatures[3]!] };
    expect(proofFailure(() => verifyBlockSignatures(target, header, config, forged))).toMatchObject({ check: 'signatures.duplicate' });
  });

  it('valid signatures of less than 2/3 of the weight fail the weight check', () => {
    const { target, header, config, set } = testnetLink();
    const forged = { ...set, signatures: set.signatures.slice(0, 9) };
    const e = proofFailure(() => verifyBlockSignatures(target, header, config, forged));
    expect(e.check).toBe('signatures.weight');
    expect(e.message).toContain('not more than 2/3');
  });

  it('a wrong catchain seqno in the signature set or the header fails the cc_seqno check', () => {
    const { target, header, config, set } = testnetLink();
    const wrongSet = { ...set, catchainSeqno: (set as { catchainSeqno: number }).catchainSeqno + 1 };
    expect(proofFailure(() => verifyBlockSignatures(target, header, config, wrongSet))).toMatchObject({ check: 'signatures.cc_seqno' });
    const group = masterchainGroup(config.validators, config.catchain, header.genCatchainSeqno);
    const wrongHeader = { ...header, genCatchainSeqno: header.genCatchainSeqno + 1 };
    expect(proofFailure(() => verifySignatureSet(target, wrongHeader, set, group))).toMatchObject({ check: 'signatures.cc_seqno' });
  });

  it('a wrong validator-set hash in the signature set or the header fails the set_hash check', () => {
    const { target, header, config, set } = testnetLink();
    const wrongSet = { ...set, validatorSetHash: set.validatorSetHash ^ 1 };
    expect(proofFailure(() => verifyBlockSignatures(target, header, config, wrongSet))).toMatchObject({ check: 'signatures.set_hash' });
    const wrongHeader = { ...header, genValidatorListHashShort: (header.genValidatorListHashShort ^ 1) >>> 0 };
    const wrongBoth = { ...set, validatorSetHash: wrongHeader.genValidatorListHashShort | 0 };
    expect(proofFailure(() => verifyBlockSignatures(target, wrongHeader, config, wrongBoth))).toMatchObject({ check: 'signatures.set_hash' });
  });

  it('the signatures do not verify for another block id', () => {
    const { target, header, config, set } = testnetLink();
    const other = { ...target, fileHash: Buffer.alloc(32, 1) };
    expect(proofFailure(() => verifyBlockSignatures(other, header, config, set))).toMatchObject({ check: 'signatures.signature' });
  });
});

/** A synthetic key block's config with test keys: the mainnet shape (shuffled main validators out of a larger set). */
function syntheticNetwork(total: number, main: number, label = 'sigs-test') {
  const validators = testValidators(total, label, (i) => 1_000_000n + BigInt(i % 7) * 10_000n);
  const config = configDictCell(
    new Map([
      [34, validatorSetCell(validators, { main })],
      [28, catchainConfigCell({ shuffleMcValidators: true })],
      [30, simplexConsensusConfigCell()],
    ]),
  );
  const trust = readTrustConfig(config);
  const ccSeqno = 4242;
  const order = mainValidators(trust.validators, trust.catchain, ccSeqno).map((d) => validators[d.index]!);
  const group = masterchainGroup(trust.validators, trust.catchain, ccSeqno);
  // The builders' shortcut (no cells) must agree with the group read back from the cells.
  const shortcut = masterchainSigners(validators, ccSeqno, { main });
  expect(shortcut.signers).toEqual(order);
  expect(shortcut.setHash).toBe(group.hash);
  const target: BlockIdExt = { workchain: -1, shard: MC_SHARD, seqno: 1000, rootHash: Buffer.alloc(32, 0xaa), fileHash: Buffer.alloc(32, 0xbb) };
  const header: SignedHeader = { genCatchainSeqno: ccSeqno, genValidatorListHashShort: group.hash };
  return { validators, trust, order, group, target, header, ccSeqno };
}

/** The fewest of `order` (from the front) whose weight is a supermajority, and that many minus one. */
function quorum(order: TestValidator[], total: bigint): { enough: TestValidator[]; short: TestValidator[] } {
  let w = 0n;
  for (let i = 0; i < order.length; i++) {
    w += order[i]!.weight;
    if (w * 3n > total * 2n) return { enough: order.slice(0, i + 1), short: order.slice(0, i) };
  }
  throw new Error('no quorum');
}

describe('signatures with test keys (synthetic key blocks)', () => {
  it('ordinary: 100 main of 400 validators, shuffled as the node does, verify with a bare supermajority', () => {
    const n = syntheticNetwork(400, 100);
    expect(n.trust.consensus).toMatchObject({ mc: { kind: 'simplex_config_v2' } });
    expect(n.group.members.map((m) => m.index)).toEqual(n.order.map((v) => v.index));
    expect(n.order.map((v) => v.index)).not.toEqual([...Array(100).keys()]);
    const { enough, short } = quorum(n.order, n.group.totalWeight);
    const ok = verifyBlockSignatures(n.target, n.header, n.trust, signOrdinary(n.target, enough, n.ccSeqno, n.group.hash));
    expect(ok.signers).toBe(enough.length);
    const e = proofFailure(() => verifyBlockSignatures(n.target, n.header, n.trust, signOrdinary(n.target, short, n.ccSeqno, n.group.hash)));
    expect(e.check).toBe('signatures.weight');
  });

  it('ordinary: signatures from a validator outside the main group are refused', () => {
    const n = syntheticNetwork(40, 10);
    const outside = n.validators.find((v) => !n.order.includes(v))!;
    const set = signOrdinary(n.target, [...n.order, outside], n.ccSeqno, n.group.hash);
    expect(proofFailure(() => verifyBlockSignatures(n.target, n.header, n.trust, set))).toMatchObject({ check: 'signatures.signer' });
  });

  it('ordinary: a previous set (other keys, other hash) cannot sign for the current one', () => {
    const n = syntheticNetwork(20, 20);
    const old = syntheticNetwork(20, 20, 'sigs-test-previous');
    const set = signOrdinary(n.target, old.order, n.ccSeqno, n.group.hash);
    expect(proofFailure(() => verifyBlockSignatures(n.target, n.header, n.trust, set))).toMatchObject({ check: 'signatures.signer' });
  });

  const sessionId = Buffer.alloc(32, 0x5e);
  it('simplex: a finalize vote over an ordinary candidate for the target verifies', () => {
    const n = syntheticNetwork(400, 100);
    const set = signSimplex(n.target, n.order, n.ccSeqno, n.group.hash, { sessionId, slot: 77 });
    expect(verifyBlockSignatures(n.target, n.header, n.trust, set).signers).toBe(100);
  });

  it('simplex: a vote over an empty candidate naming the target (the tip it extends) verifies', () => {
    const n = syntheticNetwork(30, 30);
    const candidate = { kind: 'empty' as const, block: n.target, parent: { slot: 76, hash: Buffer.alloc(32, 3) } };
    const set = signSimplex(n.target, n.order, n.ccSeqno, n.group.hash, { sessionId, slot: 78, candidate });
    expect(verifyBlockSignatures(n.target, n.header, n.trust, set).signers).toBe(30);
  });

  it('simplex: a vote for another block is refused by the candidate check', () => {
    const n = syntheticNetwork(30, 30);
    const other = { ...n.target, seqno: n.target.seqno + 1 };
    const set = signSimplex(other, n.order, n.ccSeqno, n.group.hash, { sessionId, slot: 77 });
    const e = proofFailure(() => verifyBlockSignatures(n.target, n.header, n.trust, set));
    expect(e.check).toBe('signatures.candidate');
  });

  it('simplex: signatures over another candidate for the same block do not verify', () => {
    const n = syntheticNetwork(30, 30);
    const voted = signSimplex(n.target, n.order, n.ccSeqno, n.group.hash, { sessionId, slot: 77 });
    const presented = signSimplex(n.target, n.order.slice(0, 1), n.ccSeqno, n.group.hash, {
      sessionId,
      slot: 77,
      candidate: { kind: 'ordinary', block: n.target, collatedFileHash: Buffer.alloc(32, 9), parent: { slot: 76, hash: Buffer.alloc(32, 1) } },
    });
    const forged = { ...presented, signatures: voted.signatures };
    expect(proofFailure(() => verifyBlockSignatures(n.target, n.header, n.trust, forged))).toMatchObject({ check: 'signatures.signature' });
  });

  it('simplex: votes from another session or another slot do not verify', () => {
    const n = syntheticNetwork(30, 30);
    const set = signSimplex(n.target, n.order, n.ccSeqno, n.group.hash, { sessionId, slot: 77 });
    if (set.kind !== 'simplex') throw new Error('expected simplex');
    const otherSession = { ...set, sessionId: Buffer.alloc(32, 0x5f) };
    expect(proofFailure(() => verifyBlockSignatures(n.target, n.header, n.trust, otherSession))).toMatchObject({ check: 'signatures.signature' });
    const otherSlot = { ...set, slot: 78 };
    expect(proofFailure(() => verifyBlockSignatures(n.target, n.header, n.trust, otherSlot))).toMatchObject({ check: 'signatures.signature' });
  });

  it('simplex: insufficient weight is refused', () => {
    const n = syntheticNetwork(100, 100);
    const { short } = quorum(n.order, n.group.totalWeight);
    const set = signSimplex(n.target, short, n.ccSeqno, n.group.hash, { sessionId, slot: 77 });
    expect(proofFailure(() => verifyBlockSignatures(n.target, n.header, n.trust, set))).toMatchObject({ check: 'signatures.weight' });
  });

  it('simplex: a candidate that is not CandidateHashData, or has trailing bytes, is malformed', () => {
    const n = syntheticNetwork(10, 10);
    const set = signSimplex(n.target, n.order, n.ccSeqno, n.group.hash, { sessionId, slot: 77 });
    if (set.kind !== 'simplex') throw new Error('expected simplex');
    const trailing = { ...set, candidate: Buffer.concat([set.candidate, Buffer.alloc(4)]) };
    expect(proofFailure(() => verifyBlockSignatures(n.target, n.header, n.trust, trailing))).toMatchObject({ check: 'signatures.candidate', failure: 'malformed' });
    const junk = { ...set, candidate: Buffer.alloc(64, 1) };
    expect(proofFailure(() => verifyBlockSignatures(n.target, n.header, n.trust, junk))).toMatchObject({ check: 'signatures.candidate', failure: 'malformed' });
  });

  it('ordinary and simplex sets survive their TL encoding, set hashes above 2^31 included', () => {
    let n = syntheticNetwork(4, 4, 'tl-0');
    for (let i = 1; n.group.hash < 2 ** 31; i++) n = syntheticNetwork(4, 4, `tl-${i}`);
    for (const set of [
      signOrdinary(n.target, n.order, n.ccSeqno, n.group.hash),
      signSimplex(n.target, n.order, n.ccSeqno, n.group.hash, { sessionId, slot: 2 ** 31 + 5 }),
    ]) {
      const decoded = tlRead(tlWrite((w) => signatureSet.write(w, set)), signatureSet.read, 'liteServer.SignatureSet');
      expect(verifyBlockSignatures(n.target, n.header, n.trust, decoded).signers).toBe(4);
    }
  });
});
