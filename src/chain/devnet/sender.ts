// Submitting wallet transfers to the devnet: next seqno from the state the mempool would leave
// (so several transfers from one wallet fit in one block), signing, and mempool admission.
import { toNano, type MessageRelaxed } from '@ton/core';
import type { DevnetChain } from './chain.js';
import { highloadTransfer, nextHighloadQueryId, signedTransfer, walletSeqno, type DevnetWallet } from './wallets.js';

/**
 * Default TON forwarded with a jetton transfer so the recipient gets a transfer_notification with
 * enough gas to run (wallet apps often forward 1 nanoton; pass forward_ton_amount to do that).
 */
export const DEFAULT_FORWARD_TON = toNano('0.01');

export interface MessageSent {
  /** Hash of the external message (the trace's root message). */
  message_hash: string;
}

export function pendingSeqno(chain: DevnetChain, wallet: DevnetWallet): number {
  const account = chain.pendingAccount(wallet.id);
  return account.status === 'active' ? walletSeqno(wallet.version, account.data) : 0;
}

// one submission per wallet at a time: two concurrent sends must not sign the same seqno
const walletQueues = new WeakMap<DevnetChain, Map<string, Promise<unknown>>>();

function oneAtATime<T>(chain: DevnetChain, walletId: string, work: () => Promise<T>): Promise<T> {
  let queues = walletQueues.get(chain);
  if (!queues) walletQueues.set(chain, (queues = new Map()));
  const previous = queues.get(walletId) ?? Promise.resolve();
  const run = previous.then(work, work);
  const settled = run.catch(() => undefined);
  queues.set(walletId, settled);
  void settled.then(() => {
    if (queues.get(walletId) === settled) queues.delete(walletId);
  });
  return run;
}

/** Whether the wallet is deployed in the state the mempool would leave. */
export function pendingDeployed(chain: DevnetChain, wallet: DevnetWallet): boolean {
  return chain.pendingAccount(wallet.id).status === 'active';
}

/**
 * Signs and submits one external from `wallet` with the next seqno (a highload wallet: the next
 * query id for the devnet's clock, unused in the state the mempool would leave); returns the message hash.
 */
export function sendFromWallet(chain: DevnetChain, wallet: DevnetWallet, messages: MessageRelaxed[]): Promise<string> {
  return oneAtATime(chain, wallet.id, async () => {
    const cell =
      wallet.version === 'highload-v2'
        ? highloadTransfer(wallet, { queryId: nextHighloadQueryId(chain.pendingAccount(wallet.id).data, chain.now()), messages, deploy: !pendingDeployed(chain, wallet) })
        : await signedTransfer(wallet, { seqno: pendingSeqno(chain, wallet), messages, now: chain.now() });
    return (await chain.sendExternalMessage(cell.toBoc())).hash;
  });
}
