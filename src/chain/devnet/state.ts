// Account states of the devnet: the committed map (one base64 ShardAccount per account) and
// copy-on-write overlays over it, used to build a block or to emulate a message without
// touching committed state.
import type { AccountId } from '../model.js';
import { NONEXISTENT_ACCOUNT } from './emulator.js';

export interface AccountReader {
  /** The account's ShardAccount (base64 BoC); `account_none` for an address never seen. */
  get(id: AccountId): string;
}

export class CommittedAccounts implements AccountReader {
  private readonly accounts = new Map<AccountId, string>();

  get(id: AccountId): string {
    return this.accounts.get(id) ?? NONEXISTENT_ACCOUNT;
  }

  has(id: AccountId): boolean {
    return this.accounts.has(id);
  }

  set(id: AccountId, shardAccount: string): void {
    this.accounts.set(id, shardAccount);
  }

  get size(): number {
    return this.accounts.size;
  }

  entries(): IterableIterator<[AccountId, string]> {
    return this.accounts.entries();
  }

  /** Applies every change of an overlay built directly on this map. */
  apply(overlay: StateOverlay): void {
    for (const [id, shardAccount] of overlay.changes()) this.accounts.set(id, shardAccount);
  }
}

/** A copy-on-write view: reads fall through to the base, writes stay here. */
export class StateOverlay implements AccountReader {
  private readonly written = new Map<AccountId, string>();

  constructor(private readonly base: AccountReader) {}

  get(id: AccountId): string {
    return this.written.get(id) ?? this.base.get(id);
  }

  set(id: AccountId, shardAccount: string): void {
    this.written.set(id, shardAccount);
  }

  changes(): IterableIterator<[AccountId, string]> {
    return this.written.entries();
  }

  get changedCount(): number {
    return this.written.size;
  }

  /** Folds another overlay built on this one into it. */
  absorb(child: StateOverlay): void {
    for (const [id, shardAccount] of child.changes()) this.written.set(id, shardAccount);
  }
}
