// Scenarios that produce, on demand, the cases deposit and payment code must classify: a
// bounced transfer, a failed jetton transfer, a forged internal_transfer at a jetton wallet, a
// forged transfer_notification from a plain wallet, and a contract deploy.
import { createHash } from 'node:crypto';
import { Address, comment, internal, toNano, type Cell } from '@ton/core';
import { WalletContractV4 } from '@ton/ton';
import { addressToRaw } from '../address.js';
import { badRequest } from '../../errors.js';
import type { DevnetChain } from './chain.js';
import type { DevnetDirectory } from './directory.js';
import { amountInput, destinationInput, jettonBalanceOf, jettonInput, jettonWalletOf, textInput, walletInput } from './inputs.js';
import { internalTransferBody, transferNotificationBody } from './jettons.js';
import { DEFAULT_FORWARD_TON, sendFromWallet, type MessageSent } from './sender.js';
import type { DevnetWallet } from './wallets.js';

/** What scenarios use of the control API (DevnetControl, which delegates its scenario calls here). */
export interface DevnetControl {
  readonly chain: DevnetChain;
  readonly directory: DevnetDirectory;
  nextQueryId(): bigint;
  requireTon(wallet: DevnetWallet, amount: bigint): void;
  submitJettonTransfer(wallet: DevnetWallet, jettonWallet: Address, t: { amount: bigint; to: Address; payload: Cell | null; forwardTon: bigint }): Promise<MessageSent>;
}

/** An address no one deploys to: bounceable messages sent there always come back. */
export const NOBODY = new Address(0, createHash('sha256').update('tonwatch devnet: nobody lives here').digest());

export interface BounceRequest {
  from: string;
  /** Default: an address that never has code. */
  to?: string;
  amount?: string | bigint;
}

export async function bounce(control: DevnetControl, req: BounceRequest): Promise<MessageSent & { to: string }> {
  const wallet = walletInput(control.directory, req.from, 'from');
  const to = req.to === undefined ? { id: addressToRaw(NOBODY), address: NOBODY } : destinationInput(control.directory, req.to, 'to');
  const amount = req.amount === undefined ? toNano('0.1') : amountInput(req.amount, 'amount');
  if (control.chain.pendingAccount(to.id).status === 'active') {
    throw badRequest(`to: ${to.id} is a deployed contract; a bounce needs an address without code`, 'to');
  }
  control.requireTon(wallet, amount);
  const hash = await sendFromWallet(control.chain, wallet, [
    internal({ to: to.address, value: amount, bounce: true, body: comment('this transfer bounces') }),
  ]);
  return { message_hash: hash, to: to.id };
}

export interface FailedJettonRequest {
  from: string;
  jetton: string;
  to: string;
}

/** A jetton transfer of one unit more than the sender holds: the sender's jetton wallet fails it. */
export async function failedJettonTransfer(
  control: DevnetControl,
  req: FailedJettonRequest,
): Promise<MessageSent & { amount: string }> {
  const wallet = walletInput(control.directory, req.from, 'from');
  const { master } = jettonInput(control.directory, req.jetton, 'jetton');
  const to = destinationInput(control.directory, req.to, 'to');
  const jettonWallet = await jettonWalletOf(control.chain, master, wallet.address, 'jetton');
  const amount = (await jettonBalanceOf(control.chain, jettonWallet)) + 1n;
  const sent = await control.submitJettonTransfer(wallet, jettonWallet, {
    amount,
    to: to.address,
    payload: comment('more than I have'),
    forwardTon: DEFAULT_FORWARD_TON,
  });
  return { ...sent, amount: amount.toString() };
}

export interface ForgedInternalTransferRequest {
  from: string;
  jetton: string;
  /** Owner whose jetton wallet receives the forged message. */
  to: string;
  amount?: string | bigint;
  comment?: string;
}

/** A plain wallet sends `internal_transfer` straight to someone's jetton wallet, which must refuse it. */
export async function forgedInternalTransfer(
  control: DevnetControl,
  req: ForgedInternalTransferRequest,
): Promise<MessageSent & { target: string }> {
  const wallet = walletInput(control.directory, req.from, 'from');
  const { master } = jettonInput(control.directory, req.jetton, 'jetton');
  const to = destinationInput(control.directory, req.to, 'to');
  const amount = req.amount === undefined ? 1_000_000n : amountInput(req.amount, 'amount');
  const text = req.comment === undefined ? 'forged internal_transfer' : textInput(req.comment, 'comment');
  const target = await jettonWalletOf(control.chain, master, to.address, 'jetton');
  const value = toNano('0.1');
  control.requireTon(wallet, value);
  const body = internalTransferBody({
    queryId: control.nextQueryId(),
    amount,
    from: wallet.address,
    responseAddress: wallet.address,
    forwardTonAmount: DEFAULT_FORWARD_TON,
    forwardPayload: comment(text),
  });
  const hash = await sendFromWallet(control.chain, wallet, [internal({ to: target, value, bounce: true, body })]);
  return { message_hash: hash, target: addressToRaw(target) };
}

export interface ForgedNotificationRequest {
  from: string;
  to: string;
  amount?: string | bigint;
  comment?: string;
  /** The original sender the notification claims; default `from`. */
  sender?: string;
}

/** A plain wallet (a fake jetton wallet) sends `transfer_notification` to an owner: no jettons moved. */
export async function forgedNotification(control: DevnetControl, req: ForgedNotificationRequest): Promise<MessageSent> {
  const wallet = walletInput(control.directory, req.from, 'from');
  const to = destinationInput(control.directory, req.to, 'to');
  const amount = req.amount === undefined ? 1_000_000n : amountInput(req.amount, 'amount');
  const text = req.comment === undefined ? 'forged transfer_notification' : textInput(req.comment, 'comment');
  const sender = req.sender === undefined ? wallet.address : destinationInput(control.directory, req.sender, 'sender').address;
  const value = toNano('0.05');
  control.requireTon(wallet, value);
  const body = transferNotificationBody({ queryId: control.nextQueryId(), amount, sender, forwardPayload: comment(text) });
  const hash = await sendFromWallet(control.chain, wallet, [internal({ to: to.address, value, bounce: true, body })]);
  return { message_hash: hash };
}

export interface DeployRequest {
  from: string;
  amount?: string | bigint;
}

let deployCounter = 0;

/** Deploys a new v4 wallet contract (the sender's key, a fresh subwallet id) with an internal message. */
export async function deploy(control: DevnetControl, req: DeployRequest): Promise<MessageSent & { address: string }> {
  const wallet = walletInput(control.directory, req.from, 'from');
  const amount = req.amount === undefined ? toNano('0.1') : amountInput(req.amount, 'amount');
  control.requireTon(wallet, amount);
  // a subwallet id nobody used yet gives a new address
  deployCounter = (deployCounter + 1) % 1_000_000;
  const walletId = (Math.floor(Date.now() / 1000) * 1_000_000 + deployCounter) % 0xffffffff;
  const contract = WalletContractV4.create({ workchain: 0, publicKey: wallet.publicKey, walletId });
  const hash = await sendFromWallet(control.chain, wallet, [
    internal({ to: contract.address, value: amount, bounce: false, init: contract.init }),
  ]);
  return { message_hash: hash, address: addressToRaw(contract.address) };
}
