// The state accounts have right after a block, read from the block itself: its
// `state_update:^(MERKLE_UPDATE ShardState)` holds on its new side, unpruned, every cell the block changed,
// so each account the block touched is there with its new balance, last transaction and code/data hashes
// (code or data the block left alone are pruned: their hashes are still proven). Proven by the block's root
// hash only: that a masterchain block will commit the block is not (docs/FINALITY.md). A path into a pruned
// branch says nothing, so such an account is left out, never guessed.
import { Cell } from '@ton/core';
import { ExoticType } from './cell/arena.js';
import type { CellRef } from './cell/cell.js';
import { toCore } from './cell/core.js';
import { bocRoot } from './cell/parse.js';
import type { AccountId, AccountState, AccountStateHashes, HashHex } from './model.js';
import { readShardAccountLeaf } from './liteserver/trust/account.js';
import { cellHash, hashHex, provenReader } from './liteserver/trust/merkle.js';
import { ProofError, proofRead } from './liteserver/trust/errors.js';
import { readShardState } from './liteserver/trust/state.js';
import { accountParts } from './liteserver/tvm.js';
import { BLOCK_TAG } from './tlb/block.js';
import { lookupHashmapAt } from './tlb/hashmap.js';

/**
 * The states `accounts` have after the block whose BoC is `boc` (its root hash must be `rootHash`), for those
 * of its shard the state update's new side holds; an account under a pruned branch, or not in the new state
 * (deleted), is left out. Throws ProofError when the BoC is not that block or its state update is unreadable.
 * The block is read by the cell layer (no cell objects but those of the accounts asked for).
 */
export function accountStatesAfterBlock(boc: Buffer, rootHash: HashHex, accounts: Iterable<AccountId>): Map<AccountId, AccountStateHashes> {
  const check = 'block_states';
  const block = proofRead(check, () => bocRoot(boc));
  if (block.hashHex(0) !== hashHex(rootHash)) throw new ProofError(check, 'mismatch', `the BoC is block ${block.hashHex(0)}, not ${hashHex(rootHash)}`);
  const stateUpdate = proofRead(check, () => {
    if (provenReader(block, check).uint(32) !== BLOCK_TAG) throw new ProofError(check, 'malformed', 'not a Block');
    return block.ref(2);
  });
  if (stateUpdate.exoticType !== ExoticType.MerkleUpdate) throw new ProofError(`${check}.state_update`, 'malformed', 'state_update is not a MERKLE_UPDATE');
  // !merkle_update#04 old_hash:bits256 new_hash:bits256 …: the new side must hash to new_hash
  const newHash = Buffer.from(stateUpdate.dataBytes().subarray(33, 65)).toString('hex');
  const newState = stateUpdate.ref(1);
  if (newState.hashHex(0) !== newHash) throw new ProofError(`${check}.state_update`, 'mismatch', 'the new side does not hash to the new hash');
  const shardState = readShardState(newState, `${check}.state`);
  const found = new Map<AccountId, AccountStateHashes>();
  for (const address of new Set(accounts)) {
    const [wc, id] = address.split(':');
    if (Number(wc) !== shardState.workchain || !id) continue;
    const state = accountAt(shardState.accounts, address, BigInt(`0x${id}`));
    if (state) found.set(address, state);
  }
  return found;
}

/** The account's state in a (partly pruned) ShardAccounts, or null when the proof does not hold it whole enough. */
function accountAt(accounts: CellRef, address: AccountId, key: bigint): AccountStateHashes | null {
  try {
    const r = provenReader(accounts, 'block_states.accounts');
    const root = r.maybeRef(); // HashmapAugE: absent when empty
    if (!root) return null;
    const lookup = lookupHashmapAt(provenReader(root, 'block_states.accounts'), 256, key);
    if (lookup.status !== 'found') return null;
    const leaf = readShardAccountLeaf(lookup.value);
    // only the account's own cells become @ton/core cells (its code and data are pruned unless changed)
    const { status, balance, code, data } = accountParts(toCore(leaf.accountCell));
    const hash = (cell: Cell | null) => (cell ? cellHash(cell) : null);
    return { address, status, balance, lastTxLt: leaf.lastTransLt, lastTxHash: leaf.lastTransHash, codeHash: hash(code), dataHash: hash(data) };
  } catch {
    // a pruned Account cell (or a pruned part @ton/core's reader enters): not proven here
    return null;
  }
}

/** A read state by its code and data hashes, as a block's state update gives them. */
export function stateHashes(state: AccountState): AccountStateHashes {
  const hash = (boc: string | null) => (boc ? cellHash(Cell.fromBase64(boc)) : null);
  const { address, status, balance, lastTxLt, lastTxHash } = state;
  return { address, status, balance, lastTxLt, lastTxHash, codeHash: hash(state.code), dataHash: hash(state.data) };
}
