// `account_state_change` and `jettons_change` payloads (ton-streaming-go/v2/server.go:
// AccountStateNotification.state — MsgPackAccountStateToIndexAccountState — and JettonsNotification.jetton).
// Both are sent at confirmed and finalized only (docs.ton.org, notification reference).
import { Cell } from '@ton/core';
import type { AccountId, AccountStateHashes, HashHex } from '../../../chain/model.js';
import { dec, v3Address, v3Hash, v3HashOfBytes } from './encode.js';
import type { Finality, V3AccountState, V3JettonWallet } from './types.js';

const bocHash = (boc: string | null) => (boc ? v3HashOfBytes(Cell.fromBase64(boc).hash()) : null);

/**
 * The `account_state_change` notification for one account after a transaction. `stateHash` is the
 * account cell's hash (the transaction's HASH_UPDATE new hash: `account_state_after.hash`).
 */
export function accountStateChange(state: AccountStateHashes, stateHash: HashHex, finality: Exclude<Finality, 'pending'>) {
  const s: V3AccountState = {
    hash: v3Hash(stateHash),
    balance: dec(state.balance),
    extra_currencies: null,
    account_status: state.status,
    frozen_hash: null,
    data_hash: state.dataHash ? v3Hash(state.dataHash) : null,
    code_hash: state.codeHash ? v3Hash(state.codeHash) : null,
  };
  return { type: 'account_state_change' as const, finality, account: v3Address(state.address), state: s };
}

/** A jetton wallet as `get_wallet_data` proves it, with its account state. */
export interface JettonWalletState {
  address: AccountId;
  balance: bigint;
  owner: AccountId;
  jetton: AccountId;
  lastTxLt: bigint;
  code: string | null;
  data: string | null;
}

/** The `jettons_change` notification (address book and metadata are added by the caller when asked). */
export function jettonsChange(w: JettonWalletState, finality: Exclude<Finality, 'pending'>) {
  const jetton: V3JettonWallet = {
    address: v3Address(w.address),
    balance: dec(w.balance),
    owner: v3Address(w.owner),
    jetton: v3Address(w.jetton),
    last_transaction_lt: dec(w.lastTxLt),
    code_hash: bocHash(w.code),
    data_hash: bocHash(w.data),
  };
  return { type: 'jettons_change' as const, finality, jetton };
}
