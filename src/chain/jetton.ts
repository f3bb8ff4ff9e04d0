// The TEP-74 get-methods every part asks a jetton about, written once: the wallet a master derives
// for an owner (`get_wallet_address`), the master's data (`get_jetton_data`) and a wallet's balance
// (`get_wallet_data`). Invoices, the indexer and the devnet each turn a JettonAnswerError into their
// own answer (null, a 400, a 503); a failing chain source throws through unchanged.
import { beginCell, type Cell, type TupleItem } from '@ton/core';
import { accountToAddress, addressToRaw } from './address.js';
import type { AccountId } from './model.js';
import type { ChainSource } from './source.js';

/** Anything that runs get-methods on chain state: every ChainSource, the devnet chain. */
export type GetMethodRunner = Pick<ChainSource, 'runGetMethod'>;

/** What runGetMethod reports for an account that has no code (the devnet and the TVM agree). */
export const NO_CODE_EXIT_CODE = -256;

/** The contract answered, but not as a jetton master or wallet does. */
export class JettonAnswerError extends Error {
  constructor(
    readonly account: AccountId,
    readonly method: string,
    readonly exitCode: number,
    why: string,
  ) {
    super(`${account} ${why}`);
    this.name = 'JettonAnswerError';
  }
}

/**
 * The one rule for a stack entry that should hold a slice: a slice, or a cell with the same bits
 * (a TVM returns a slice; runners and APIs that serialize the stack may hand back a cell). Null for
 * anything else.
 */
export function sliceOrCell(item: TupleItem | undefined): Cell | null {
  return item?.type === 'slice' || item?.type === 'cell' ? item.cell : null;
}

/** The address a slice-or-cell answer starts with; null for addr_none, a non-address or no slice. */
export function addressAnswer(item: TupleItem | undefined): AccountId | null {
  const cell = sliceOrCell(item);
  if (!cell) return null;
  try {
    const address = cell.beginParse().loadMaybeAddress();
    return address ? addressToRaw(address) : null;
  } catch {
    return null;
  }
}

/**
 * The owner's jetton wallet as `master` derives it (`get_wallet_address(owner)` on chain state) —
 * the only address that proves a jetton deposit, never one taken from a message.
 */
export async function jettonWalletAddress(source: GetMethodRunner, master: AccountId, owner: AccountId): Promise<AccountId> {
  const method = 'get_wallet_address';
  const res = await source.runGetMethod(master, method, [{ type: 'slice', cell: beginCell().storeAddress(accountToAddress(owner)).endCell() }]);
  if (res.exitCode !== 0 || !sliceOrCell(res.stack[0])) {
    throw new JettonAnswerError(master, method, res.exitCode, `is not a jetton master (${method} exit code ${res.exitCode})`);
  }
  const wallet = addressAnswer(res.stack[0]);
  if (!wallet) throw new JettonAnswerError(master, method, res.exitCode, `answered ${method} with no address`);
  return wallet;
}

/** TEP-74 `get_jetton_data`: (total_supply, mintable, admin_address, jetton_content, jetton_wallet_code). */
export interface JettonData {
  totalSupply: bigint;
  mintable: boolean;
  /** Null when the master has no admin (addr_none). */
  admin: AccountId | null;
  content: Cell;
  /** The code every genuine wallet of this jetton runs. */
  walletCode: Cell;
}

export async function jettonData(source: GetMethodRunner, master: AccountId): Promise<JettonData> {
  const method = 'get_jetton_data';
  const res = await source.runGetMethod(master, method);
  const [supply, mintable, admin, content, walletCode] = res.stack;
  if (res.exitCode !== 0 || supply?.type !== 'int' || mintable?.type !== 'int' || !sliceOrCell(admin) || content?.type !== 'cell' || walletCode?.type !== 'cell') {
    throw new JettonAnswerError(master, method, res.exitCode, `is not a jetton master (${method} exit code ${res.exitCode})`);
  }
  return { totalSupply: supply.value, mintable: mintable.value !== 0n, admin: addressAnswer(admin), content: content.cell, walletCode: walletCode.cell };
}

/** A jetton wallet's balance (`get_wallet_data`'s first value); 0 while the wallet has no code yet. */
export async function jettonWalletBalance(source: GetMethodRunner, wallet: AccountId): Promise<bigint> {
  const method = 'get_wallet_data';
  const res = await source.runGetMethod(wallet, method);
  const balance = res.stack[0];
  if (res.exitCode === 0 && balance?.type === 'int') return balance.value;
  // an account without code: nothing arrived yet
  if (res.exitCode === NO_CODE_EXIT_CODE) return 0n;
  throw new JettonAnswerError(wallet, method, res.exitCode, `is not a jetton wallet (${method} exit code ${res.exitCode})`);
}

/** TEP-74 `get_wallet_data`: (balance, owner, jetton master, wallet code). */
export interface JettonWalletData {
  balance: bigint;
  owner: AccountId;
  jetton: AccountId;
}

/** A jetton wallet's `get_wallet_data` as it claims it (prove the master with jettonWalletAddress). */
export async function jettonWalletData(source: GetMethodRunner, wallet: AccountId): Promise<JettonWalletData> {
  const method = 'get_wallet_data';
  const res = await source.runGetMethod(wallet, method);
  const [balance, owner, jetton] = [res.stack[0], addressAnswer(res.stack[1]), addressAnswer(res.stack[2])];
  if (res.exitCode !== 0 || balance?.type !== 'int' || !owner || !jetton) {
    throw new JettonAnswerError(wallet, method, res.exitCode, `is not a jetton wallet (${method} exit code ${res.exitCode})`);
  }
  return { balance: balance.value, owner, jetton };
}
