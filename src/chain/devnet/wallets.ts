// The devnet's named wallets: deterministic, PUBLIC test keys (sha256 of a fixed tag and the
// name — anyone can derive them; never use them outside the devnet), standard v4 and v5r1 wallet
// contracts from @ton/ton and the reference highload wallet v2 from @ton-community/assets-sdk, and
// signed external messages (v4/v5r1 signed with node:crypto ed25519, much faster than the pure-JS
// signer the highload wallet's builder uses).
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import {
  Address,
  beginCell,
  Cell,
  Dictionary,
  external,
  SendMode,
  storeMessage,
  type MessageRelaxed,
} from '@ton/core';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { HighloadWalletContractV2 } from '@ton-community/assets-sdk/dist/wallets/HighloadWalletContractV2.js';
import type { AccountId } from '../model.js';
import { addressToRaw } from '../address.js';

export type WalletVersion = 'v4' | 'v5r1' | 'highload-v2';

export interface DevnetWallet {
  name: string;
  version: WalletVersion;
  address: Address;
  id: AccountId;
  publicKey: Buffer;
  contract: WalletContractV4 | WalletContractV5R1 | HighloadWalletContractV2;
  privateKey: KeyObject;
  /** The 32-byte seed, for the highload wallet's own (tweetnacl) signer. */
  seed: Buffer;
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
  // an exchange's payout wallet: query ids instead of a seqno, up to 254 transfers in one external
  { name: 'highload', version: 'highload-v2' },
];

/** Most messages one external may carry: v4 allows 4, v5r1 up to 255, the highload wallet 254 (int16 dict keys; 255 actions at most). */
export const MAX_MESSAGES: Record<WalletVersion, number> = { v4: 4, v5r1: 255, 'highload-v2': 254 };

/** How long a signed external stays valid, in seconds of devnet time. */
const VALIDITY_SECONDS = 600;

// PKCS#8 DER prefix of an Ed25519 private key (RFC 8410); the 32-byte seed follows it.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function devnetSeed(name: string): Buffer {
  return createHash('sha256').update(`tonwatch devnet public test key: ${name}`).digest();
}

export function createWallet(name: string, version: WalletVersion): DevnetWallet {
  const seed = devnetSeed(name);
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  // the raw public key is the last 32 bytes of the SPKI DER encoding
  const publicKey = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
  const contract =
    version === 'v4'
      ? WalletContractV4.create({ workchain: 0, publicKey })
      : version === 'v5r1'
        ? WalletContractV5R1.create({ workchain: 0, publicKey })
        : HighloadWalletContractV2.create({ workchain: 0, publicKey });
  return { name, version, address: contract.address, id: addressToRaw(contract.address), publicKey, contract, privateKey, seed };
}

export function genesisWallets(): DevnetWallet[] {
  return WALLET_NAMES.map(({ name, version }) => createWallet(name, version));
}

/** The seqno stored in a wallet's data cell (v4: first 32 bits; v5r1: after the signature flag); a highload wallet has none (0). */
export function walletSeqno(version: WalletVersion, data: Cell | null): number {
  if (!data || version === 'highload-v2') return 0;
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
  if (wallet.contract instanceof HighloadWalletContractV2) throw new Error('a highload wallet signs query ids: use highloadTransfer');
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

/** Seconds a highload query stays valid: the builder caps it at 300 (query id = valid_until << 32 | n). */
export const HIGHLOAD_VALIDITY_SECONDS = 300;

/** The query ids a highload wallet remembers (old_queries: udict of uint64, cleaned 64 s after they expire). */
export function highloadQueries(data: Cell | null): bigint[] {
  if (!data) return [];
  const s = data.beginParse();
  s.skip(32 + 64 + 256);
  // the values are empty builders, stored inline
  return s.loadDict(Dictionary.Keys.BigUint(64), { serialize: () => undefined, parse: () => null }).keys();
}

/** The next query id for `now` (devnet seconds): valid until now + 300 s, the lowest counter the wallet has not used for that second or later. */
export function nextHighloadQueryId(data: Cell | null, now: number): bigint {
  const base = BigInt(now + HIGHLOAD_VALIDITY_SECONDS) << 32n;
  const used = highloadQueries(data).filter((q) => q >= base);
  return used.length ? used.reduce((a, b) => (a > b ? a : b)) + 1n : base;
}

/**
 * A signed external message from a highload wallet carrying `messages` under `queryId`; `deploy`
 * attaches its StateInit (the first message it sends).
 */
export function highloadTransfer(wallet: DevnetWallet, args: { queryId: bigint; messages: MessageRelaxed[]; deploy: boolean }): Cell {
  if (!(wallet.contract instanceof HighloadWalletContractV2)) throw new Error(`${wallet.name} is not a highload wallet`);
  if (args.messages.length < 1 || args.messages.length > MAX_MESSAGES['highload-v2']) {
    throw new Error(`a highload wallet sends 1 to ${MAX_MESSAGES['highload-v2']} messages at once`);
  }
  // the builder derives the query id from (now, timeout, seqno): give it back its parts
  const validUntil = Number(args.queryId >> 32n);
  const body = wallet.contract.createTransfer({
    secretKey: Buffer.concat([wallet.seed, wallet.publicKey]),
    messages: args.messages,
    seqno: Number(args.queryId & 0xffffffffn),
    now: (validUntil - HIGHLOAD_VALIDITY_SECONDS) * 1000,
    timeout: HIGHLOAD_VALIDITY_SECONDS,
    sendMode: SendMode.PAY_GAS_SEPARATELY | SendMode.IGNORE_ERRORS,
  });
  const message = external({ to: wallet.address, init: args.deploy ? wallet.contract.init : undefined, body });
  return beginCell().store(storeMessage(message)).endCell();
}
