import { beginCell, Dictionary, generateMerkleProof } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { MC_31220993 as MC_ANCHOR, mainnetFixture as fixture, proofFailure as failure } from '../../../../test/support/proofs.js';
import { flipBit, proveOnly, replaceAt } from '../../../../test/support/merkle.js';
import { CellReader, PrunedCellError } from '../../decode/reader.js';
import { cellHash, lookupHashmap, lookupHashmapE, merkleUpdateHashes, proofRoots, provenReader, provenValue, unwrapMerkleProof } from './merkle.js';

const MC_31220993 = MC_ANCHOR.rootHash;

describe('Merkle proof primitives on mainnet proofs', () => {
  it('unwraps the header proof of masterchain block 31220993 against its root hash', () => {
    const [root] = proofRoots(fixture('proofs/header_proof_mc31220993.boc'), 'header', 1);
    const block = unwrapMerkleProof(root!, 'header', MC_31220993);
    expect(new CellReader(block).uint(32)).toBe(0x11ef55aa);
    const e = failure(() => unwrapMerkleProof(root!, 'header', MC_31220993.replace(/^5/, '6')));
    expect(e).toMatchObject({ check: 'header', failure: 'mismatch' });
  });

  it('a bit flipped in a pruned hash changes the proven hash', () => {
    const [root] = proofRoots(fixture('proofs/header_proof_mc31220993.boc'), 'header', 1);
    const block = root!.refs[0]!;
    const valueFlow = block.refs[1]!; // pruned in a header proof
    expect(() => new CellReader(valueFlow)).toThrow(PrunedCellError);
    const forged = proveOnly(replaceAt(block, [1], (c) => flipBit(c, 16 + 5)), () => true);
    expect(failure(() => unwrapMerkleProof(forged, 'header', MC_31220993))).toMatchObject({ failure: 'mismatch' });
  });

  it('refuses a root that is not a Merkle proof and a BoC with the wrong number of roots', () => {
    const [root] = proofRoots(fixture('proofs/header_proof_mc31220993.boc'), 'header');
    expect(failure(() => unwrapMerkleProof(root!.refs[0]!, 'header'))).toMatchObject({ failure: 'malformed' });
    expect(failure(() => proofRoots(fixture('proofs/header_proof_mc31220993.boc'), 'shard', 2))).toMatchObject({ check: 'shard', failure: 'malformed' });
  });

  it("links the block's MERKLE_UPDATE new hash to the state proof (shard proof of 31220993)", () => {
    const [blockProof, stateProof] = proofRoots(fixture('proofs/shard_proof_mc31220993.boc'), 'shard', 2);
    const block = unwrapMerkleProof(blockProof!, 'shard.block', MC_31220993);
    const { newHash, oldHash } = merkleUpdateHashes(block.refs[2]!, 'shard.state_update');
    expect(newHash).not.toBe(oldHash);
    expect(cellHash(unwrapMerkleProof(stateProof!, 'shard.state', newHash))).toBe(newHash);
    expect(failure(() => merkleUpdateHashes(block.refs[0]!, 'shard.state_update'))).toMatchObject({ failure: 'malformed' });
    expect(failure(() => provenReader(block.refs[1]!, 'shard.value_flow'))).toMatchObject({ check: 'shard.value_flow', failure: 'not-proven' });
  });
});

describe('strict dictionary lookup', () => {
  const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Uint(32));
  const keys = [1n, 2n, 3n, 0x8000n, 2n ** 255n, 2n ** 256n - 1n, 12345678901234567890n];
  keys.forEach((k, i) => dict.set(k, 1000 + i));
  const root = beginCell().storeDictDirect(dict).endCell();

  it('finds every key and proves others absent on a whole map', () => {
    keys.forEach((k, i) => {
      const found = lookupHashmap(root, 256, k);
      expect(found.status).toBe('found');
      expect(provenValue(found, 'd', 'key')!.uint(32)).toBe(1000 + i);
    });
    expect(lookupHashmap(root, 256, 4n)).toEqual({ status: 'absent' });
    expect(lookupHashmap(root, 256, 2n ** 254n)).toEqual({ status: 'absent' });
  });

  it('says not-proven, never absent, where @ton/core would see nothing', () => {
    // Only the path to key 3 is kept (as a liteserver proves one account): the rest of the map is pruned.
    const proof = generateMerkleProof(dict, [3n], Dictionary.Keys.BigUint(256));
    const inner = proof.refs[0]!;
    expect(cellHash(inner)).toBe(cellHash(beginCell().storeDictDirect(dict).endCell()));
    expect(provenValue(lookupHashmap(inner, 256, 3n), 'd', 'key 3')!.uint(32)).toBe(1002);
    expect(lookupHashmap(inner, 256, 2n ** 255n).status).toBe('not-proven');
    expect(failure(() => provenValue(lookupHashmap(inner, 256, 2n ** 255n), 'accounts', 'key'))).toMatchObject({ check: 'accounts', failure: 'not-proven' });
    // @ton/core's Dictionary reads the same proof as a map without that key: the pitfall this module avoids.
    const loose = Dictionary.loadDirect(Dictionary.Keys.BigUint(256), Dictionary.Values.Uint(32), inner);
    expect(loose.get(2n ** 255n)).toBeUndefined();
  });

  it('reads HashmapE: an empty map proves absence', () => {
    const empty = beginCell().storeBit(false).endCell();
    expect(lookupHashmapE(new CellReader(empty), 32, 5n)).toEqual({ status: 'absent' });
    const full = beginCell().storeDict(dict).endCell();
    expect(lookupHashmapE(new CellReader(full), 256, 3n).status).toBe('found');
  });
});
