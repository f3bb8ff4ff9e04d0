// Check (c): an account's state at a shard block. The proof's two roots are the shard block and its state
// (linked by the MERKLE_UPDATE new hash); ShardAccounts then gives the account's last transaction, and its
// pruned Account cell must hash to the state the server sent. Absence is proven only by a path that
// leaves the map at a cell the proof holds.
import { Cell } from '@ton/core';
import type { Reader } from '../../cell/reader.js';
import { readCurrencyCollection } from '../../decode/message.js';
import { describeBlock, shardIdHex, type BlockRef } from './block-ref.js';
import { expectHash, ProofError, proofRead } from './errors.js';
import { cellHash, hashHex, lookupHashmapE, proofRoots, provenReader, provenValue, type HashLike } from './merkle.js';
import { accountPosition, checkShardBlockProof, shardContains } from './shards.js';
import { provenStateOfBlock, readShardState } from './state.js';

export interface AccountRef {
  workchain: number;
  /** The 256-bit account id. */
  id: HashLike;
}

export type ProvenAccountState =
  | {
      kind: 'exists';
      /** The Account cell the server sent, now proven. */
      state: Cell;
      lastTransHash: string;
      lastTransLt: bigint;
      /** From the ShardAccounts augmentation (DepthBalanceInfo). */
      balance: bigint;
    }
  | { kind: 'absent' };

/** `liteServer.accountState` as the checks read it. */
export interface AccountStateReply {
  id: BlockRef;
  shardblk: BlockRef;
  shardProof: Buffer;
  proof: Buffer;
  state: Buffer;
}

/**
 * (c) The account's state at shard block `shardBlock` (already trusted, e.g. by checkShardBlockProof).
 * `state` is the BoC the server sent (empty when it says the account does not exist).
 */
export function checkAccountStateProof(proof: Buffer | Cell[], shardBlock: BlockRef, account: AccountRef, state: Buffer, check = 'account'): ProvenAccountState {
  const [blockProof, stateProof] = Array.isArray(proof) ? proof : proofRoots(proof, check, 2);
  if (!blockProof || !stateProof) throw new ProofError(check, 'malformed', 'an account proof has two roots');
  const provenState = provenStateOfBlock(blockProof, stateProof, hashHex(shardBlock.rootHash), check).state;
  const shardState = readShardState(provenState, `${check}.state`);
  const id = hashHex(account.id);
  if (shardState.workchain !== account.workchain || !shardContains(shardState.shard, accountPosition(id))) {
    throw new ProofError(`${check}.shard`, 'mismatch', `the state is of shard (${shardState.workchain}, ${shardState.shard}), which does not hold ${account.workchain}:${id}`);
  }
  const accounts = provenReader(shardState.accounts, `${check}.shard_accounts`);
  const lookup = lookupHashmapE(accounts, 256, BigInt(`0x${id}`), `${check}.shard_accounts`);
  const leaf = provenValue(lookup, `${check}.shard_accounts`, `account ${id}`);
  const sent = state.length === 0 ? null : proofRoots(state, `${check}.state_boc`, 1)[0]!;
  if (!leaf) {
    if (sent && !isAccountNone(sent)) throw new ProofError(`${check}.state_hash`, 'mismatch', 'the proof shows no such account, yet a state was sent');
    return { kind: 'absent' };
  }
  const { accountCell, balance, lastTransHash, lastTransLt } = proofRead(`${check}.shard_account`, () => readShardAccountLeaf(leaf));
  if (!sent) throw new ProofError(`${check}.state_hash`, 'mismatch', `the proof shows account ${id}, yet no state was sent`);
  expectHash(`${check}.state_hash`, cellHash(sent), cellHash(accountCell), 'sent account state hash');
  return { kind: 'exists', state: sent, lastTransHash, lastTransLt, balance };
}

/**
 * (b)+(c) a whole `getAccountState` reply against masterchain block `reply.id`, which must already be trusted.
 * For a basechain account `shard_proof` proves `shardblk` first; for a masterchain one `shardblk` is `id`.
 */
export function checkAccountState(reply: AccountStateReply, account: AccountRef, check = 'account'): ProvenAccountState {
  if (reply.shardblk.workchain !== account.workchain) {
    throw new ProofError(`${check}.shard`, 'mismatch', `shard block ${describeBlock(reply.shardblk)} is not of workchain ${account.workchain}`);
  }
  if (account.workchain === -1) {
    if (hashHex(reply.shardblk.rootHash) !== hashHex(reply.id.rootHash)) {
      throw new ProofError(`${check}.shard`, 'mismatch', 'a masterchain account is read at the masterchain block itself');
    }
  } else {
    const descr = checkShardBlockProof(reply.shardProof, reply.id, reply.shardblk, `${check}.shard_proof`);
    if (!shardContains(descr.shard, accountPosition(hashHex(account.id)))) {
      throw new ProofError(`${check}.shard`, 'mismatch', `shard ${shardIdHex(descr.shard)} does not hold the account`);
    }
  }
  return checkAccountStateProof(reply.proof, reply.shardblk, account, reply.state, check);
}

/**
 * A ShardAccounts leaf at its `extra:DepthBalanceInfo value:ShardAccount`:
 *   depth_balance$_ split_depth:(#<= 30) balance:CurrencyCollection, then
 *   account_descr$_ account:^Account last_trans_hash:bits256 last_trans_lt:uint64
 */
export function readShardAccountLeaf<C>(leaf: Reader<C>): { accountCell: C; balance: bigint; lastTransHash: string; lastTransLt: bigint } {
  leaf.skip(5);
  const balance = readCurrencyCollection(leaf);
  return { balance, accountCell: leaf.ref(), lastTransHash: leaf.hex(256), lastTransLt: leaf.bigUint(64) };
}

/** `account_none$0`: a sent state that says "no account" (one zero bit, no refs). */
function isAccountNone(cell: Cell): boolean {
  return cell.refs.length === 0 && cell.bits.length === 1 && !cell.bits.at(0);
}
