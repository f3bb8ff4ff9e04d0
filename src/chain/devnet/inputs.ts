// Reading control-API inputs: wallet names, destinations, amounts, BoCs, jettons. Every bad value
// becomes a 400 ApiError naming the field.
import { Address, Cell } from '@ton/core';
import { accountToAddress, addressToRaw, parseAddressInfo } from '../address.js';
import { jettonWalletAddress, jettonWalletBalance, JettonAnswerError } from '../jetton.js';
import type { AccountId } from '../model.js';
import { badRequest } from '../../errors.js';
import type { DevnetChain } from './chain.js';
import type { DevnetDirectory, DevnetJetton } from './directory.js';
import type { DevnetWallet } from './wallets.js';

const MAX_UNITS = 2n ** 120n - 1n; // Coins are VarUInteger 16: at most 120 bits

export function walletInput(directory: DevnetDirectory, name: unknown, field: string): DevnetWallet {
  if (typeof name !== 'string' || name.length === 0) throw badRequest(`${field} must be a wallet name`, field);
  const wallet = directory.wallets.find((w) => w.name === name.toLowerCase());
  if (!wallet) {
    const names = directory.wallets.map((w) => w.name).join(', ');
    throw badRequest(`${field}: no devnet wallet named "${name}" (wallets: ${names})`, field);
  }
  return wallet;
}

export interface Destination {
  id: AccountId;
  address: Address;
  /** The bounce flag the address form asked for; null for raw forms and wallet names. */
  bounceable: boolean | null;
}

/** A wallet name or any address form. */
export function destinationInput(directory: DevnetDirectory, input: unknown, field: string): Destination {
  if (typeof input !== 'string' || input.length === 0) throw badRequest(`${field} must be a wallet name or an address`, field);
  const wallet = directory.wallets.find((w) => w.name === input.toLowerCase());
  if (wallet) return { id: wallet.id, address: wallet.address, bounceable: null };
  try {
    const info = parseAddressInfo(input);
    const friendly = !input.includes(':');
    return { id: info.account, address: accountToAddress(info.account), bounceable: friendly ? info.bounceable : null };
  } catch (err) {
    throw badRequest(`${field} is neither a wallet name nor a valid address: ${err instanceof Error ? err.message : String(err)}`, field);
  }
}

/** A positive integer amount in minimal units (string of digits, or bigint from module callers). */
export function amountInput(value: unknown, field: string, { allowZero = false } = {}): bigint {
  let amount: bigint;
  if (typeof value === 'bigint') amount = value;
  else if (typeof value === 'string' && /^[0-9]{1,40}$/.test(value)) amount = BigInt(value);
  else throw badRequest(`${field} must be a positive integer string in minimal units`, field);
  if (amount > MAX_UNITS) throw badRequest(`${field} is larger than a Coins value can hold`, field);
  if (amount === 0n && !allowZero) throw badRequest(`${field} must be greater than 0`, field);
  return amount;
}

/** A base64 (standard or url-safe) BoC with one root cell. */
export function bocInput(value: unknown, field: string): Cell {
  if (typeof value !== 'string' || value.length === 0) throw badRequest(`${field} must be a base64 BoC`, field);
  try {
    const roots = Cell.fromBoc(Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
    if (roots.length !== 1) throw new Error(`expected one root cell, got ${roots.length}`);
    return roots[0]!;
  } catch (err) {
    throw badRequest(`${field} is not a valid BoC: ${err instanceof Error ? err.message : String(err)}`, field);
  }
}

export function textInput(value: unknown, field: string, maxBytes = 1000): string {
  if (typeof value !== 'string') throw badRequest(`${field} must be a string`, field);
  if (Buffer.byteLength(value, 'utf8') > maxBytes) throw badRequest(`${field} is longer than ${maxBytes} bytes`, field);
  return value;
}

/** A devnet jetton key (`usdt`, `gram`, `fake-usdt`) or any jetton master address. */
export function jettonInput(directory: DevnetDirectory, input: unknown, field: string): { master: AccountId; known: DevnetJetton | null } {
  if (typeof input !== 'string' || input.length === 0) throw badRequest(`${field} must be a jetton key or a master address`, field);
  const known = directory.jettons.find((j) => j.key === input.toLowerCase());
  if (known) return { master: known.masterId, known };
  try {
    const master = parseAddressInfo(input).account;
    return { master, known: directory.jettons.find((j) => j.masterId === master) ?? null };
  } catch {
    const keys = directory.jettons.map((j) => j.key).join(', ');
    throw badRequest(`${field}: "${input}" is neither a devnet jetton (${keys}) nor an address`, field);
  }
}

/** The owner's jetton wallet, as the master derives it (chain/jetton.ts); a 400 naming `field` when it is no master. */
export async function jettonWalletOf(chain: DevnetChain, master: AccountId, owner: Address, field: string): Promise<Address> {
  try {
    return accountToAddress(await jettonWalletAddress(chain, master, addressToRaw(owner)));
  } catch (err) {
    if (err instanceof JettonAnswerError) throw badRequest(`${field}: ${master} is not a jetton master on the devnet`, field);
    throw err;
  }
}

/** Balance of a jetton wallet (`get_wallet_data`); 0 when it does not exist yet. */
export async function jettonBalanceOf(chain: DevnetChain, jettonWallet: Address): Promise<bigint> {
  return jettonWalletBalance(chain, addressToRaw(jettonWallet));
}
