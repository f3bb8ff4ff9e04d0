// The devnet's named wallets: deterministic, PUBLIC test keys (sha256 of a fixed tag and the
// name — anyone can derive them; never use them outside the devnet), standard v4 and v5r1 wallet
// contracts from @ton/ton, and signed external messages built with node:crypto ed25519 (much
// faster than the pure-JS signer).
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import {
  Address,
  beginCell,
  Cell,
  external,
  SendMode,
  storeMessage,
  type MessageRelaxed,
} from '@ton/core';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import type { AccountId } from '../model.js';
import { addressToRaw } from '../address.js';

export type WalletVersion = 'v4' | 'v5r1';

export interface DevnetWallet {
  name: string;
  version: WalletVersion;
  address: Address;
  id: AccountId;
  publicKey: Buffer;
  contract: WalletContractV4 | WalletContractV5R1;
  privateKey: KeyObject;
}

/** The named wallets every devnet has. `mallory` plays the forger in scam scenarios. */
export const WALLET_NAMES: ReadonlyArray<{ name: string; version: WalletVersion }> = [
  { name: 'faucet', version: 'v5r1' },
  { name: 'alice', version: 'v4' },
  { name: 'bob', version: 'v5r1' },
  { name: 'carol', version: 'v4' },
  { name: 'dave', version: 'v5r1' },
  { name: 'merchant', version: 'v4' },
  { name: 'exchange', version: 'v5r1' },
  { name: 'mallory', version: 'v4' },
];

/** Most messages one external may carry: v4 allows 4, v5r1 up to 255. */
export const MAX_MESSAGES: Record<WalletVersion, number> = { v4: 4, v5r1: 255 };

/** How long a signed external stays valid, in seconds of devnet time. */
const VALIDITY_SECONDS = 600;

// PKCS#8 DER prefix of an Ed25519 private key (RFC 8410); the 32-byte seed follows it.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function devnetSeed(name: string): Buffer {
  return createHash('sha256').update(`tonwatch devnet public test key: ${name}`).digest();
}

export function createWallet(name: string, version: WalletVersion): DevnetWallet {
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, devnetSeed(name)]),
    format: 'der',
    type: 'pkcs8',
  });
  // the raw public key is the last 32 bytes of the SPKI DER encoding
  const publicKey = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
  const contract =
    version === 'v4'
      ? WalletContractV4.create({ workchain: 0, publicKey })
      : WalletContractV5R1.create({ workchain: 0, publicKey });
  return { name, version, address: contract.address, id: addressToRaw(contract.address), publicKey, contract, privateKey };
}

export function genesisWallets(): DevnetWallet[] {
  return WALLET_NAMES.map(({ name, version }) => createWallet(name, version));
}

/** The seqno stored in a wallet's data cell (v4: first 32 bits; v5r1: after the signature flag). */
export function walletSeqno(version: WalletVersion, data: Cell | null): number {
  if (!data) return 0;
  const s = data.beginParse();
  if (version === 'v5r1') s.skip(1);
  return s.loadUint(32);
}

/**
 * A signed external message from `wallet` carrying `messages`; the first message a wallet sends
 * (seqno 0) carries its StateInit so that it deploys itself.
 */
export async function signedTransfer(
  wallet: DevnetWallet,
  args: { seqno: number; messages: MessageRelaxed[]; now: number },
): Promise<Cell> {
  if (args.messages.length < 1 || args.messages.length > MAX_MESSAGES[wallet.version]) {
    throw new Error(`a ${wallet.version} wallet sends 1 to ${MAX_MESSAGES[wallet.version]} messages at once`);
  }
  const signer = async (payload: Cell) => sign(null, payload.hash(), wallet.privateKey);
  const common = {
    seqno: args.seqno,
    signer,
    messages: args.messages,
    sendMode: SendMode.PAY_GAS_SEPARATELY | SendMode.IGNORE_ERRORS,
    timeout: args.now + VALIDITY_SECONDS,
  };
  const body =
    wallet.contract instanceof WalletContractV4
      ? await wallet.contract.createTransfer(common)
      : await wallet.contract.createTransfer(common);
  const message = external({
    to: wallet.address,
    init: args.seqno === 0 ? wallet.contract.init : undefined,
    body,
  });
  return beginCell().store(storeMessage(message)).endCell();
}
