import { beginCell, Cell, convertToMerkleProof } from '@ton/core';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cellAt, replaceAt } from '../../../../test/support/merkle.js';
import { configDictCell } from '../testing/validator-keys.js';
import { tlRead, tlWrite } from '../tl/codec.js';
import { blockLink, type BlockIdExt, type SignatureSet } from '../tl/lite-types.js';
import { configOfKeyBlock, configOfMasterchainState, configParam } from './config-params.js';
import { checkForwardLink, type ForwardLink } from './forward-link.js';
import { unwrapMerkleProof } from './merkle.js';
import { readSignedHeader } from './signed-header.js';
import { proofFailure } from '../../../../test/support/proofs.js';

const fixtures = new URL('../../../../test/fixtures/', import.meta.url);
const testnet = JSON.parse(readFileSync(new URL('testnet/validator_signatures_4350531.json', fixtures), 'utf8'));
const entry = (type: string) => testnet.data.find((d: { type: string }) => d.type === type);
const MC_SHARD = -(1n << 63n);
const boc = (c: Cell) => convertToMerkleProof(c).toBoc();


/** Path (reference indexes) from a key block to its config dictionary: extra → custom → config. */
function configPath(block: Cell): number[] {
  const config = configOfKeyBlock(block);
  const mc = cellAt(block, [3, 3]);
  return [3, 3, mc.refs.findIndex((r) => r.hash(0).equals(config.hash(0)))];
}

/**
 * The real testnet link 4350480 → 4350531. The recorded proof of 4350480 carries param 34 only; a forward
 * link's config proof carries 28 too, so `withParam28` grafts the real testnet param 28 (state 4324374)
 * next to the real param 34 — the source's root hash changes accordingly, the signed target does not.
 */
function testnetForwardLink(withParam28 = true): ForwardLink {
  let source = Cell.fromBoc(Buffer.from(entry('set-validators').boc[0], 'hex'))[0]!;
  if (withParam28) {
    const state = unwrapMerkleProof(Cell.fromBoc(readFileSync(new URL('testnet/tongo-config_proof_4324374.boc', fixtures)))[0]!, 'config');
    const p28 = configParam(configOfMasterchainState(state), 28)!;
    const p34 = configParam(configOfKeyBlock(source), 34)!;
    source = replaceAt(source, configPath(source), () => configDictCell(new Map([[28, p28], [34, p34]])));
  }
  const dest = Cell.fromBoc(Buffer.from(entry('proof-validators').boc[0], 'hex'))[0]!;
  const signed = entry('proof-validators');
  const header = readSignedHeader(dest);
  const to: BlockIdExt = { workchain: -1, shard: MC_SHARD, seqno: 4350531, rootHash: Buffer.from(signed.id.rootHash, 'hex'), fileHash: Buffer.from(signed.id.fileHash, 'hex') };
  const from: BlockIdExt = { workchain: -1, shard: MC_SHARD, seqno: 4350480, rootHash: source.hash(0), fileHash: Buffer.alloc(32) };
  const signatures: SignatureSet = {
    kind: 'ordinary',
    catchainSeqno: header.genCatchainSeqno,
    validatorSetHash: header.genValidatorListHashShort | 0,
    signatures: signed.signatures.map((s: { node_id: string; r: string; s: string }) => ({ nodeIdShort: Buffer.from(s.node_id, 'hex'), signature: Buffer.from(s.r + s.s, 'hex') })),
  };
  return { kind: 'forward', toKeyBlock: true, from, to, destProof: boc(dest), configProof: boc(source), signatures };
}

describe('forward link check on the real testnet key blocks 4350480 → 4350531', () => {
  it('proves the target: header, source params 34/28, 12 of 12 signatures', () => {
    const proven = checkForwardLink(testnetForwardLink());
    expect(proven.header).toMatchObject({ seqno: 4350531, keyBlock: true, genCatchainSeqno: 57242 });
    expect(proven.sourceConfig.validators.total).toBe(14);
    expect(proven.report.signers).toBe(12);
  });

  it('the link survives its TL encoding as liteServer.blockLinkForward', () => {
    const bytes = tlWrite((w) => blockLink.write(w, testnetForwardLink()));
    const link = tlRead(bytes, blockLink.read, 'liteServer.BlockLink');
    if (link.kind !== 'forward') throw new Error('expected a forward link');
    expect(checkForwardLink(link).report.signers).toBe(12);
  });

  it('a config proof without param 28 is not proven (no guess about the shuffle)', () => {
    expect(proofFailure(() => checkForwardLink(testnetForwardLink(false)))).toMatchObject({ check: 'config.param28', failure: 'not-proven' });
  });

  it('a destination proof of another block fails its root hash', () => {
    const link = testnetForwardLink();
    const forged = { ...link, destProof: link.configProof };
    expect(proofFailure(() => checkForwardLink(forged))).toMatchObject({ check: 'link.dest.root_hash', failure: 'mismatch' });
  });

  it('a config proof that is not of the source block fails its root hash', () => {
    const link = testnetForwardLink();
    expect(proofFailure(() => checkForwardLink({ ...link, configProof: link.destProof }))).toMatchObject({ check: 'link.config.root_hash' });
  });

  it('the target id must be the proven header (seqno) and its key-block flag', () => {
    const link = testnetForwardLink();
    expect(proofFailure(() => checkForwardLink({ ...link, to: { ...link.to, seqno: 4350532 } }))).toMatchObject({ check: 'link.dest.id' });
    expect(proofFailure(() => checkForwardLink({ ...link, toKeyBlock: false }))).toMatchObject({ check: 'link.dest.key_block' });
  });

  it('a link that does not go forward in the masterchain is malformed', () => {
    const link = testnetForwardLink();
    expect(proofFailure(() => checkForwardLink({ ...link, from: { ...link.from, seqno: 4350531 } }))).toMatchObject({ check: 'link.blocks' });
    expect(proofFailure(() => checkForwardLink({ ...link, to: { ...link.to, workchain: 0 } }))).toMatchObject({ check: 'link.blocks' });
  });

  it('a source that is not a key block carries no config and is refused', () => {
    const link = testnetForwardLink();
    const source = unwrapMerkleProof(Cell.fromBoc(link.configProof)[0]!, 'x');
    const mc = cellAt(source, [3, 3]);
    // McBlockExtra with key_block = 0: the same cell with its 17th bit cleared.
    const bits = mc.bits;
    const b = beginCell().storeBits(bits.substring(0, 16)).storeBit(false).storeBits(bits.substring(17, bits.length - 17));
    for (const r of mc.refs) b.storeRef(r);
    const notKey = replaceAt(source, [3, 3], () => b.endCell());
    const forged = { ...link, from: { ...link.from, rootHash: notKey.hash(0) }, configProof: boc(notKey) };
    const e = proofFailure(() => checkForwardLink(forged));
    expect(e).toMatchObject({ check: 'config.block', failure: 'malformed' });
    expect(e.message).toContain('not a key block');
  });
});
