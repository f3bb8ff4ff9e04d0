// What the classifier needs to know about contracts and cannot read from messages: which accounts are
// jetton wallets (of which master, for which owner) and NFT items (of which collection, at which index).
// Each claim is proven by asking the other side (TEP-74 `get_wallet_address`, TEP-62
// `get_nft_address_by_index`), so a contract that lies about its master is not classified as its wallet.
import { beginCell, type TupleItem } from '@ton/core';
import { accountToAddress, addressToRaw } from '../../../chain/address.js';
import type { AccountId, TransactionModel } from '../../../chain/model.js';

/** Runs a get-method on current state (ChainSource.runGetMethod's shape). */
export type GetMethodRunner = (account: AccountId, method: string, stack?: TupleItem[]) => Promise<{ exitCode: number; stack: TupleItem[] }>;

export interface JettonWalletFact {
  jetton: AccountId;
  owner: AccountId;
}
export interface NftItemFact {
  collection: AccountId | null;
  index: bigint;
  owner: AccountId | null;
}

export interface ContractFacts {
  jettonWallet(account: AccountId): JettonWalletFact | undefined;
  nftItem(account: AccountId): NftItemFact | undefined;
}

export const noContractFacts: ContractFacts = { jettonWallet: () => undefined, nftItem: () => undefined };

const JETTON_OPS = new Set([0x0f8a7ea5, 0x178d4519, 0x595f07bc]); // transfer, internal_transfer, burn
const NFT_OPS = new Set([0x5fcc3d14]); // transfer

const addressOf = (item: TupleItem | undefined): AccountId | null => {
  if (item?.type !== 'slice' && item?.type !== 'cell') return null;
  try {
    const a = item.cell.beginParse().loadMaybeAddress();
    return a ? addressToRaw(a) : null;
  } catch {
    return null;
  }
};
const intOf = (item: TupleItem | undefined): bigint | null => (item?.type === 'int' ? item.value : null);
const addressArg = (account: AccountId): TupleItem => ({ type: 'slice', cell: beginCell().storeAddress(accountToAddress(account)).endCell() });

async function jettonWallet(run: GetMethodRunner, account: AccountId): Promise<JettonWalletFact | undefined> {
  const data = await run(account, 'get_wallet_data').catch(() => null);
  if (!data || data.exitCode !== 0) return undefined;
  const owner = addressOf(data.stack[1]);
  const jetton = addressOf(data.stack[2]);
  if (!owner || !jetton) return undefined;
  const check = await run(jetton, 'get_wallet_address', [addressArg(owner)]).catch(() => null);
  return check?.exitCode === 0 && addressOf(check.stack[0]) === account ? { jetton, owner } : undefined;
}

async function nftItem(run: GetMethodRunner, account: AccountId): Promise<NftItemFact | undefined> {
  const data = await run(account, 'get_nft_data').catch(() => null);
  if (!data || data.exitCode !== 0 || intOf(data.stack[0]) === 0n) return undefined;
  const index = intOf(data.stack[1]);
  if (index === null) return undefined;
  const collection = addressOf(data.stack[2]);
  const owner = addressOf(data.stack[3]);
  if (collection) {
    const check = await run(collection, 'get_nft_address_by_index', [{ type: 'int', value: index }]).catch(() => null);
    if (check?.exitCode !== 0 || addressOf(check.stack[0]) !== account) return undefined;
  }
  return { collection, index, owner };
}

/** The accounts of a trace whose messages suggest a jetton wallet or an NFT item, each proven once. */
export async function readContractFacts(txs: readonly TransactionModel[], run: GetMethodRunner): Promise<ContractFacts> {
  const jettonCandidates = new Set<AccountId>();
  const nftCandidates = new Set<AccountId>();
  for (const tx of txs) {
    const op = tx.inMessage?.opcode;
    if (op != null && JETTON_OPS.has(op)) jettonCandidates.add(tx.account);
    if (op != null && NFT_OPS.has(op)) nftCandidates.add(tx.account);
    // A newly deployed contract whose deployer is a collection may be a minted item.
    if (tx.inMessage?.hasInit && tx.inMessage.source) nftCandidates.add(tx.account);
  }
  const wallets = new Map<AccountId, JettonWalletFact>();
  const items = new Map<AccountId, NftItemFact>();
  await Promise.all([
    ...[...jettonCandidates].map(async (a) => {
      const f = await jettonWallet(run, a);
      if (f) wallets.set(a, f);
    }),
    ...[...nftCandidates].map(async (a) => {
      const f = await nftItem(run, a);
      if (f) items.set(a, f);
    }),
  ]);
  return { jettonWallet: (a) => wallets.get(a), nftItem: (a) => items.get(a) };
}
