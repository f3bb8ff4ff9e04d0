import { Address, Cell, convertToMerkleProof } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { findPath, flipBit, replaceAt } from '../../../../test/support/merkle.js';
import { MC_31220993, mainnetFixture, proofFailure } from '../../../../test/support/proofs.js';
import { checkAccountState, checkAccountStateProof } from './account.js';
import { lookupHashmapE, provenReader } from './merkle.js';
import { readShardState } from './state.js';

const ACCOUNT = { workchain: 0, id: Address.parse('EQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG').hash };
const SHARD_BLOCK = { workchain: 0, shard: '8000000000000000', seqno: 36908135, rootHash: '39e5cbca5bf69750b5d9897872c3a0d7a3e614e521c53e4de728fafed38dce27' };
const proof = mainnetFixture('proofs/account_proof_EQBvW8.boc');
const state = mainnetFixture('proofs/account_state_EQBvW8.boc');

describe('(c) account state: EQBvW8… at basechain block 36908135 (mainnet)', () => {
  it('proves the state, last transaction and balance', () => {
    const proven = checkAccountStateProof(proof, SHARD_BLOCK, ACCOUNT, state);
    expect(proven).toMatchObject({ kind: 'exists', lastTransLt: 39330697000001n, balance: 5873792469n });
    if (proven.kind !== 'exists') throw new Error('unreachable');
    expect(proven.lastTransHash).toMatch(/^[0-9a-f]{64}$/);
    expect(proven.state.hash().toString('hex')).toBe('8282d13bf66b9ace1fbf5d3abd1c59cc46d61af1d47af1665d3013d8f9e47488');
  });

  it('proves a whole getAccountState reply from masterchain block 31220993 down (shard proof, then account proof)', () => {
    const reply = { id: MC_31220993, shardblk: SHARD_BLOCK, shardProof: mainnetFixture('proofs/shard_proof_mc31220993.boc'), proof, state };
    expect(checkAccountState(reply, ACCOUNT)).toMatchObject({ kind: 'exists', lastTransLt: 39330697000001n });
    // The shard block the reply names is not the one the masterchain lists.
    const otherShardBlock = { ...SHARD_BLOCK, rootHash: 'ad1fac010600066a'.padEnd(64, '0') };
    expect(proofFailure(() => checkAccountState({ ...reply, shardblk: otherShardBlock }, ACCOUNT))).toMatchObject({ check: 'account.shard_proof.descr', failure: 'mismatch' });
    expect(proofFailure(() => checkAccountState({ ...reply, shardblk: { ...SHARD_BLOCK, workchain: -1 } }, ACCOUNT))).toMatchObject({ check: 'account.shard' });
  });

  it('fails naming the link: a swapped state, a swapped account, a forged last_trans_hash, another block', () => {
    const elector = mainnetFixture('blocks/account_state_elector.boc');
    expect(proofFailure(() => checkAccountStateProof(proof, SHARD_BLOCK, ACCOUNT, elector))).toMatchObject({ check: 'account.state_hash', failure: 'mismatch' });
    expect(proofFailure(() => checkAccountStateProof(proof, SHARD_BLOCK, ACCOUNT, Buffer.alloc(0)))).toMatchObject({ check: 'account.state_hash' });
    // Another account asked, this account's proof served: its path leaves the proof at a pruned cell.
    const other = { workchain: 0, id: '83dfd552e63729b472fcbcc8c45ebcc6691702558b68ec7527e1ba403a0f31a8' };
    expect(proofFailure(() => checkAccountStateProof(proof, SHARD_BLOCK, other, state))).toMatchObject({ check: 'account.shard_accounts', failure: 'not-proven' });
    expect(proofFailure(() => checkAccountStateProof(proof, SHARD_BLOCK, { ...ACCOUNT, workchain: -1 }, state))).toMatchObject({ check: 'account.shard', failure: 'mismatch' });
    // A server that rewrites last_trans_hash in the ShardAccount leaf changes the state's hash.
    const [blockProof, stateProof] = Cell.fromBoc(proof);
    const accountHash = Cell.fromBoc(state)[0]!.hash(0).toString('hex');
    const leafPath = findPath(stateProof!.refs[0]!, (c) => c.refs.some((r) => r.hash(0).toString('hex') === accountHash) && c.bits.length > 256 + 64);
    const forgedState = replaceAt(stateProof!.refs[0]!, leafPath, (leaf) => flipBit(leaf, leaf.bits.length - 64 - 9));
    const forged = [blockProof!, convertToMerkleProof(forgedState)];
    expect(proofFailure(() => checkAccountStateProof(forged, SHARD_BLOCK, ACCOUNT, state))).toMatchObject({ check: 'account.state_root', failure: 'mismatch' });
    expect(proofFailure(() => checkAccountStateProof(proof, { ...SHARD_BLOCK, rootHash: '00'.repeat(32) }, ACCOUNT, state))).toMatchObject({ check: 'account.block_root_hash' });
    // One bit flipped in a pruned hash of the state (a sibling subtree of ShardAccounts).
    const siblingPath = [1, ...findPath(stateProof!.refs[0]!.refs[1]!, (c) => c.isExotic && c.bits.length === 8 + 8 + 256 + 16)]; // ref 1: accounts
    const flipped = replaceAt(stateProof!.refs[0]!, siblingPath, (pruned) => flipBit(pruned, 16 + 200));
    expect(proofFailure(() => checkAccountStateProof([blockProof!, convertToMerkleProof(flipped)], SHARD_BLOCK, ACCOUNT, state))).toMatchObject({ check: 'account.state_root', failure: 'mismatch' });
  });

  it('a masterchain account is read at the masterchain block itself, strictly', () => {
    const elector = { workchain: -1, id: '33'.repeat(32) };
    const mcProof = mainnetFixture('proofs/shard_proof_mc31220993.boc'); // block + state of 31220993, accounts pruned
    const reply = { id: MC_31220993, shardblk: MC_31220993, shardProof: Buffer.alloc(0), proof: mcProof, state: mainnetFixture('blocks/account_state_elector.boc') };
    expect(proofFailure(() => checkAccountState(reply, elector))).toMatchObject({ check: 'account.shard_accounts', failure: 'not-proven' });
    expect(proofFailure(() => checkAccountState({ ...reply, shardblk: { ...MC_31220993, rootHash: SHARD_BLOCK.rootHash } }, elector))).toMatchObject({ check: 'account.shard', failure: 'mismatch' });
  });
});

describe('(c) absence, and presence without a state: basechain block 31618192 (mainnet)', () => {
  const other = mainnetFixture('proofs/account_proof_shard31618192.boc');
  const [blockProof, stateProof] = Cell.fromBoc(other);
  // SOURCES.md gives only the prefix of this block's root hash; the test anchors on the proof's own block.
  const block = { workchain: 0, shard: '8000000000000000', seqno: 31618192, rootHash: blockProof!.refs[0]!.hash(0).toString('hex') };
  const present = '83dfd552e63729b472fcbcc8c45ebcc6691702558b68ec7527e1ba403a0f31a8';

  it('an account whose key leaves the map at a proven label is absent; one under a pruned fork is not proven', () => {
    expect(block.rootHash.startsWith('ad1fac01')).toBe(true);
    const accounts = readShardState(stateProof!.refs[0]!, 's').accounts;
    const statuses = new Map<string, number>();
    let absentId: string | undefined;
    let unprovenId: string | undefined;
    for (let bit = 0; bit < 256; bit++) {
      const id = (BigInt(`0x${present}`) ^ (1n << BigInt(bit))).toString(16).padStart(64, '0');
      const status = lookupHashmapE(provenReader(accounts, 'x'), 256, BigInt(`0x${id}`)).status;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status === 'absent') absentId ??= id;
      if (status === 'not-proven') unprovenId ??= id;
    }
    expect(statuses.get('found')).toBeUndefined();
    expect(absentId).toBeDefined();
    expect(unprovenId).toBeDefined();
    expect(checkAccountStateProof(other, block, { workchain: 0, id: absentId! }, Buffer.alloc(0))).toEqual({ kind: 'absent' });
    // A server that sends a state for an account its own proof shows absent is caught.
    expect(proofFailure(() => checkAccountStateProof(other, block, { workchain: 0, id: absentId! }, state))).toMatchObject({ check: 'account.state_hash' });
    expect(proofFailure(() => checkAccountStateProof(other, block, { workchain: 0, id: unprovenId! }, Buffer.alloc(0)))).toMatchObject({ check: 'account.shard_accounts', failure: 'not-proven' });
    // The account the proof was made for exists there, so "no state" is a lie.
    expect(proofFailure(() => checkAccountStateProof(other, block, { workchain: 0, id: present }, Buffer.alloc(0)))).toMatchObject({ check: 'account.state_hash', failure: 'mismatch' });
  });
});
