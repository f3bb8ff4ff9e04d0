// Which accounts are jetton wallets, for `jettons_change`: proven, never guessed from opcodes — the
// account's `get_wallet_data` names an owner and a master, and the master's `get_wallet_address(owner)`
// gives the account back (as ton-index-worker's JettonWalletDetector does). Answers are remembered per
// account and code hash, both ways, in a bounded map: a proven wallet makes every later transaction of it
// a candidate without a read; a disproven account is skipped until its entry expires or its code changes.
// Opcodes only pick which unknown accounts are worth a proof, so ordinary wallets' traffic costs nothing.
import { Cell } from '@ton/core';
import { LRUCache } from 'lru-cache';
import { JettonAnswerError, jettonWalletAddress, type GetMethodRunner } from '../../chain/jetton.js';
import type { AccountId, AccountState, TransactionModel } from '../../chain/model.js';

/** Ops a jetton wallet receives (TEP-74 transfer, internal_transfer, burn). */
const WALLET_IN_OPS = new Set([0x0f8a7ea5, 0x178d4519, 0x595f07bc]);
/** Ops a jetton wallet sends (internal_transfer, transfer_notification, excesses, burn_notification); also what comes back bounced. */
const WALLET_OUT_OPS = new Set([0x178d4519, 0x7362d09c, 0xd53276db, 0x7bdd97de]);
/** A disproven account is asked again after this long (a contract may change its code). */
export const NOT_A_WALLET_MS = 10 * 60_000;
export const WALLET_BOOK_SIZE = 50_000;

interface Entry {
  codeHash: string;
  /** Null: not a jetton wallet (with this code). */
  owner: AccountId | null;
  jetton: AccountId | null;
  at: number;
}

/** The transaction looks like a jetton wallet's: a jetton op in, one bounced back, or one sent out. */
export function hasJettonSign(tx: TransactionModel): boolean {
  const m = tx.inMessage;
  if (m?.type === 'internal' && WALLET_IN_OPS.has(m.opcode ?? -1)) return true;
  if (m?.decoded.kind === 'bounced' && WALLET_OUT_OPS.has(m.decoded.originalOpcode ?? -1)) return true;
  return tx.outMessages.some((o) => o.type === 'internal' && WALLET_OUT_OPS.has(o.opcode ?? -1));
}

export class JettonWalletBook {
  /** Oldest remembered leaves first (a read does not move an entry); LRUCache, not a Map: V8 makes a Map's oldest-key eviction cost O(size). */
  private readonly entries: LRUCache<AccountId, Entry>;

  constructor(
    private readonly runner: GetMethodRunner,
    size = WALLET_BOOK_SIZE,
    private readonly now: () => number = Date.now,
  ) {
    this.entries = new LRUCache({ max: size });
  }

  /**
   * Cheap and synchronous: may this transaction be a jetton wallet's? A proven wallet always; a disproven
   * account not while its entry holds (unless the transaction changed its status: a deploy, a destroy);
   * an unknown one when it carries a jetton sign, or when `direct` (a client follows that very account).
   */
  candidate(tx: TransactionModel, direct = false): boolean {
    const e = this.entries.peek(tx.account);
    if (e?.owner) return true;
    if (e && this.now() - e.at < NOT_A_WALLET_MS && tx.origStatus === tx.endStatus) return false;
    return direct || hasJettonSign(tx);
  }

  /**
   * The account is the wallet of `claim.owner` for `claim.jetton` (what its `get_wallet_data` says in
   * `state`): true when proven now or before for this code; false when disproven. A failing source
   * throws and nothing is remembered.
   */
  async proves(state: AccountState, claim: { owner: AccountId; jetton: AccountId } | null): Promise<boolean> {
    const codeHash = state.code ? Cell.fromBase64(state.code).hash().toString('hex') : '';
    const e = this.entries.peek(state.address);
    if (e && e.codeHash === codeHash && (e.owner === null ? this.now() - e.at < NOT_A_WALLET_MS : e.owner === claim?.owner && e.jetton === claim?.jetton)) return e.owner !== null;
    let proven = false;
    if (claim) {
      try {
        proven = (await jettonWalletAddress(this.runner, claim.jetton, claim.owner)) === state.address;
      } catch (err) {
        if (!(err instanceof JettonAnswerError)) throw err;
      }
    }
    // an account without code is not remembered: its deploy may make it a wallet in the next transaction
    if (codeHash) this.remember(state.address, { codeHash, owner: proven ? claim!.owner : null, jetton: proven ? claim!.jetton : null, at: this.now() });
    return proven;
  }

  private remember(account: AccountId, entry: Entry): void {
    // a re-proven account moves to the newest end
    this.entries.set(account, entry);
  }
}
