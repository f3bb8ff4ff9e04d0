// `account_state_change` and `jettons_change` (confirmed and finalized only): what an account, or a jetton
// wallet, is right after one transaction, built once per (transaction, finality). A confirmed account state
// comes first from the non-final block that holds the transaction (its state update: nonfinal-states.ts),
// else, like every finalized one, from the chain source's proven reads. A state is used only when it is the
// state that transaction left (`lastTxLt` equal to its LT): an account that moved on before the read (a busy
// account, a replay) gets no notification for that transaction rather than a state it never had after it.
// A confirmed `jettons_change` has no such block source: the wallet balance comes from `get_wallet_data`,
// which runs on finalized state only, so it is sent at confirmed only when the transaction is already final.
// `jettons_change` follows every transaction of a proven jetton wallet (aborted ones too: ton-streaming-go
// sends one for each committed state of an account whose interfaces include JettonWallet), so a balance a
// bounce restored, or a plain TON top-up, reaches the clients that mirror balances from it.
import { JettonAnswerError, jettonWalletData, type JettonWalletData } from '../../chain/jetton.js';
import { stateHashes } from '../../chain/block-states.js';
import type { AccountId, AccountState, AccountStateHashes, TransactionModel } from '../../chain/model.js';
import type { ChainSource } from '../../chain/source.js';
import { ENRICH_TIMEOUT_MS, within } from './enrich.js';
import { JettonWalletBook } from './jetton-wallets.js';
import type { NonFinalStates } from './nonfinal-states.js';
import { accountStateChange, jettonsChange, readTransactionCell } from './v3/index.js';

export type StateFinality = 'confirmed' | 'finalized';

/** A built notification's JSON text and the accounts a subscriber must follow to receive it. */
export interface StateNotice {
  payload: string;
  accounts: AccountId[];
  /** Accounts its `address_book`/`metadata` cover, when it carries them (jettons_change: wallet, owner, master). */
  mentions?: AccountId[];
}

export class V2StateReader {
  private readonly built = new WeakMap<TransactionModel, Map<string, Promise<StateNotice | null>>>();
  readonly wallets: JettonWalletBook;

  constructor(
    private readonly source: Pick<ChainSource, 'getAccountState' | 'getTransactions' | 'runGetMethod'>,
    private readonly timeoutMs = ENRICH_TIMEOUT_MS,
    /** States after the non-final blocks the source showed (null: confirmed states come from the source only). */
    private readonly nonFinal: Pick<NonFinalStates, 'stateAfter'> | null = null,
  ) {
    this.wallets = new JettonWalletBook(source);
  }

  /**
   * Synchronous: may `tx` yield a `jettons_change` (a proven wallet's, or an unknown account's with a jetton
   * op in or out, or one a client follows itself: `direct`)? Only these make subscribers wait for reads.
   */
  jettonCandidate(tx: TransactionModel, direct = false): boolean {
    return this.wallets.candidate(tx, direct);
  }

  /** The account's `account_state_change` after `tx`, or null when it cannot be proven to be that state. */
  accountState(tx: TransactionModel, finality: StateFinality): Promise<StateNotice | null> {
    return this.once(tx, `a${finality}`, async () => {
      const state = await this.hashesAfter(tx, finality);
      // the log keeps no BoC: the state hash (HASH_UPDATE's new hash) comes from the transaction read back
      const boc = tx.boc ?? (state ? (await this.source.getTransactions(tx.account, tx.lt, tx.hash, 1))[0]?.boc : null);
      const cell = boc ? readTransactionCell(boc) : null;
      if (!cell || !state) return null;
      const hash = Buffer.from(cell.newStateHash, 'base64').toString('hex');
      return { payload: JSON.stringify(accountStateChange(state, hash, finality)), accounts: [tx.account] };
    });
  }

  /** The wallet's `jettons_change` after `tx` (any transaction of it), when its master proves it a wallet. */
  jettonWallet(tx: TransactionModel, finality: StateFinality): Promise<StateNotice | null> {
    return this.once(tx, `j${finality}`, async () => {
      const state = await this.stateAfter(tx, finality);
      if (!state) return null;
      let data: JettonWalletData | null = null;
      try {
        if (state.code) data = await jettonWalletData(this.source, tx.account);
      } catch (err) {
        if (!(err instanceof JettonAnswerError)) throw err;
      }
      // a contract that names a master which does not derive it is not that master's wallet
      if (!(await this.wallets.proves(state, data)) || !data) return null;
      const wallet = { address: tx.account, balance: data.balance, owner: data.owner, jetton: data.jetton, lastTxLt: state.lastTxLt, code: state.code, data: state.data };
      return { payload: JSON.stringify(jettonsChange(wallet, finality)), accounts: [tx.account, data.owner], mentions: [tx.account, data.owner, data.jetton] };
    });
  }

  /** The account after `tx` by code and data hashes; confirmed: from the non-final block that holds `tx` first. */
  private async hashesAfter(tx: TransactionModel, finality: StateFinality): Promise<AccountStateHashes | null> {
    if (finality === 'confirmed' && this.nonFinal) {
      // the book hears the block from the same source call that confirmed `tx`, maybe after this reader's
      // caller: once that call has returned, the book holds the block if it ever will
      const shown = this.nonFinal.stateAfter(tx) ?? (await new Promise<void>((r) => setImmediate(r)), this.nonFinal.stateAfter(tx));
      if (shown) return shown;
    }
    const state = await this.stateAfter(tx, finality);
    return state ? stateHashes(state) : null;
  }

  /** Finalized: at the masterchain block that committed it (a liteserver proves that state); confirmed: the newest. */
  private async stateAfter(tx: TransactionModel, finality: StateFinality): Promise<AccountState | null> {
    const state = await this.source.getAccountState(tx.account, finality === 'finalized' ? tx.mcSeqno : undefined);
    return state.lastTxLt === tx.lt ? state : null;
  }

  private once(tx: TransactionModel, key: string, build: () => Promise<StateNotice | null>): Promise<StateNotice | null> {
    let byKey = this.built.get(tx);
    if (!byKey) this.built.set(tx, (byKey = new Map()));
    let p = byKey.get(key);
    if (!p) byKey.set(key, (p = within(build(), this.timeoutMs, null)));
    return p;
  }
}
