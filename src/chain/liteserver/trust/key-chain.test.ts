// A chain of key blocks whose validator set rotates at every key block, each link signed by the set the
// previous key block named (ordinary and simplex alternating), checked link by link with checkForwardLink
// as the walk will do. Blocks are minimal real Block cells: the header and McBlockExtra's config.
import { beginCell, convertToMerkleProof, type Cell } from '@ton/core';
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
import type { BlockIdExt, SignatureSet } from '../tl/lite-types.js';
import { checkForwardLink, type ForwardLink } from './forward-link.js';
import { proofFailure } from '../../../../test/support/proofs.js';

const MC_SHARD = -(1n << 63n);
const TOTAL = 24;
const MAIN = 16;

function keyBlock(seqno: number, config: Cell, setHash: number, ccSeqno: number): Cell {
  const info = beginCell()
    .storeUint(0x9bc7a987, 32).storeUint(0, 32)
    .storeUint(0b00000010, 8) // not_master … vert_seqno_incr: only key_block set
    .storeUint(0, 8).storeUint(seqno, 32).storeUint(0, 32)
    .storeUint(0, 2).storeUint(0, 6).storeInt(-1, 32).storeUint(0, 64)
    .storeUint(1_700_000_000 + seqno, 32).storeUint(BigInt(seqno) * 1_000_000n, 64).storeUint(BigInt(seqno) * 1_000_000n + 9n, 64)
    .storeUint(setHash, 32).storeUint(ccSeqno, 32).storeUint(0, 32).storeUint(0, 32)
    .storeRef(beginCell().storeUint(0, 64 + 32 + 512).endCell())
    .endCell();
  const mcExtra = beginCell()
    .storeUint(0xcca5, 16).storeBit(true) // key_block
    .storeBit(false).storeBit(false) // shard_hashes, shard_fees
    .storeCoins(0).storeBit(false).storeCoins(0).storeBit(false) // shard_fees extra: fees, create
    .storeRef(beginCell().storeBit(false).storeBit(false).storeBit(false).endCell())
    .storeBuffer(Buffer.alloc(32, 0x55)).storeRef(config)
    .endCell();
  const empty = beginCell().endCell();
  const extra = beginCell().storeUint(0x4a33f6fd, 32).storeRef(empty).storeRef(empty).storeRef(empty).storeUint(0, 512).storeMaybeRef(mcExtra).endCell();
  return beginCell().storeUint(0x11ef55aa, 32).storeInt(-217, 32).storeRef(info).storeRef(empty).storeRef(empty).storeRef(extra).endCell();
}

interface KeyBlock {
  id: BlockIdExt;
  cell: Cell;
  validators: TestValidator[];
}

/** Key blocks 0…n: block k names set k in its param 34 and is signed by set k−1 in session k. */
function keyChain(n: number) {
  const sets = Array.from({ length: n + 1 }, (_, k) => testValidators(TOTAL, `key-chain/${k}`, (i) => 1000n + BigInt((i * 7 + k) % 11)));
  const blocks: KeyBlock[] = [];
  const links: ForwardLink[] = [];
  for (let k = 0; k <= n; k++) {
    const config = configDictCell(new Map([
      [34, validatorSetCell(sets[k]!, { main: MAIN })],
      [28, catchainConfigCell({ shuffleMcValidators: true })],
      [30, simplexConsensusConfigCell()],
    ]));
    const signing = k === 0 ? { signers: [], setHash: 0 } : masterchainSigners(sets[k - 1]!, k, { main: MAIN });
    const cell = keyBlock(100 * k + 1, config, signing.setHash, k);
    const id: BlockIdExt = { workchain: -1, shard: MC_SHARD, seqno: 100 * k + 1, rootHash: cell.hash(0), fileHash: Buffer.alloc(32, k) };
    blocks.push({ id, cell, validators: sets[k]! });
    if (k === 0) continue;
    const from = blocks[k - 1]!;
    const signatures: SignatureSet = k % 2
      ? signOrdinary(id, signing.signers, k, signing.setHash)
      : signSimplex(id, signing.signers, k, signing.setHash, { sessionId: Buffer.alloc(32, k), slot: 1000 + k });
    links.push({
      kind: 'forward', toKeyBlock: true, from: from.id, to: id,
      destProof: convertToMerkleProof(cell).toBoc(), configProof: convertToMerkleProof(from.cell).toBoc(), signatures,
    });
  }
  return { blocks, links, sets };
}


describe('a chain of key blocks with rotating validator sets, half ordinary and half simplex', () => {
  const chain = keyChain(12);

  it('every link verifies from the previous trusted key block', () => {
    let trusted = chain.blocks[0]!.id;
    const kinds: string[] = [];
    for (const link of chain.links) {
      expect(link.from).toEqual(trusted);
      const proven = checkForwardLink(link);
      expect(proven.report.signers).toBe(MAIN);
      kinds.push(link.signatures.kind);
      trusted = proven.to;
    }
    expect(trusted.seqno).toBe(1201);
    expect(kinds.filter((k) => k === 'simplex')).toHaveLength(6);
  });

  it('signatures by a set two key blocks old are refused', () => {
    const link = chain.links[5]!; // to key block 6, signed by set 5
    const stale = masterchainSigners(chain.sets[4]!, 6, { main: MAIN });
    const forged = { ...link, signatures: signSimplex(link.to, stale.signers, 6, stale.setHash, { sessionId: Buffer.alloc(32, 6), slot: 1006 }) };
    expect(proofFailure(() => checkForwardLink(forged)).check).toMatch(/^signatures\.(set_hash|signer)$/);
    const sameHash = { ...link, signatures: signOrdinary(link.to, stale.signers, 6, (link.signatures.validatorSetHash >>> 0)) };
    expect(proofFailure(() => checkForwardLink(sameHash))).toMatchObject({ check: 'signatures.signer' });
  });

  it('a link from a block that is not its real source (a skipped key block) is refused', () => {
    const skip = { ...chain.links[5]!, from: chain.blocks[4]!.id, configProof: convertToMerkleProof(chain.blocks[4]!.cell).toBoc() };
    expect(proofFailure(() => checkForwardLink(skip)).check).toMatch(/^signatures\./);
  });

  it('a simplex vote for another candidate is refused', () => {
    const link = chain.links[3]!; // simplex, to key block 4
    const signing = masterchainSigners(chain.sets[3]!, 4, { main: MAIN });
    const other = { ...link.to, rootHash: Buffer.alloc(32, 0xee) };
    const forged = { ...link, signatures: signSimplex(other, signing.signers, 4, signing.setHash, { sessionId: Buffer.alloc(32, 4), slot: 1004 }) };
    expect(proofFailure(() => checkForwardLink(forged))).toMatchObject({ check: 'signatures.candidate' });
  });
});
