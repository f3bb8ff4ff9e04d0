// Liteservers have no mempool to read: the pending messages of a liteserver source are the external
// messages this process sent, until a walked block holds their transaction or they expire.
import { loadMessage, type Cell, type Message } from '@ton/core';
import { LRUCache } from 'lru-cache';
import { addressToRaw } from '../address.js';
import type { PendingMessage, TransactionModel } from '../model.js';
import { singleRootBoc } from '../message-boc.js';
import { ChainRejectedError } from '../source.js';

export interface ExternalMessage {
  cell: Cell;
  message: Message;
  hash: string;
  destination: string;
}

/** A submitted BoC: one root, a Message, external-in; anything else is refused with the devnet's codes. */
export function parseExternalMessage(boc: Buffer): ExternalMessage {
  const cell = singleRootBoc(boc);
  let message: Message;
  try {
    message = loadMessage(cell.beginParse());
  } catch (err) {
    throw new ChainRejectedError(`not a Message cell: ${(err as Error).message}`, 'invalid_message');
  }
  if (message.info.type !== 'external-in') throw new ChainRejectedError('only external inbound messages can be sent', 'not_external');
  return { cell, message, hash: cell.hash().toString('hex'), destination: addressToRaw(message.info.dest) };
}

export class Outbox {
  /** Pending messages, the oldest added first (one added again moves to the newest end), so also in order of expiry. */
  private readonly entries: LRUCache<string, { message: PendingMessage; expiresAt: number }>;
  private readonly listeners = new Set<(message: PendingMessage) => void>();

  constructor(
    /** How long a sent message is pending when no block shows it (wallet messages expire within minutes). */
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    /** Most messages kept (the oldest go first): what the overlay can put here is bounded too. */
    maxEntries = 50_000,
  ) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  has(hash: string): boolean {
    this.expire();
    return this.entries.has(hash);
  }

  add(message: PendingMessage): void {
    // the emulated trace goes to the listeners; the entry keeps the message alone
    const { emulated: _, ...kept } = message;
    this.entries.set(message.hash, { message: kept, expiresAt: this.now() + this.ttlMs });
    for (const l of [...this.listeners]) {
      try {
        l(message);
      } catch {
        // one listener's failure must not keep the message from the others
      }
    }
  }

  list(): PendingMessage[] {
    this.expire();
    return Array.from(this.entries.rvalues(), (e) => e!.message);
  }

  subscribe(listener: (message: PendingMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drops the messages these (walked) transactions consumed. */
  landed(transactions: readonly TransactionModel[]): void {
    if (this.entries.size === 0) return;
    for (const tx of transactions) if (tx.inMessage) this.entries.delete(tx.inMessage.hash);
  }

  /** Oldest first, up to the first message still pending: entries expire in the order they were added (a clock stepped back delays them by at most the step). */
  private expire(): void {
    const now = this.now();
    const expired: string[] = [];
    for (const hash of this.entries.rkeys()) {
      if (this.entries.peek(hash)!.expiresAt > now) break;
      expired.push(hash);
    }
    for (const hash of expired) this.entries.delete(hash);
  }
}
