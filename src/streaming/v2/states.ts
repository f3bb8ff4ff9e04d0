// `account_state_change` and `jettons_change` (confirmed and finalized only): what an account, or a jetton
// wallet, is right after one transaction, read through the chain source's proven reads and built once per
// (transaction, finality). A read is used only when it is still the state that transaction left
// (`lastTxLt` equal to its LT): an account that moved on before the read (a busy account, a replay) gets
// no notification for that transaction rather than a state it never had after it.
// `jettons_change` follows every transaction of a proven jetton wallet (aborted ones too: ton-streaming-go
// sends one for each committed state of an account whose interfaces include JettonWallet), so a balance a
// bounce restored, or a plain TON top-up, reaches the clients that mirror balances from it.
import { JettonAnswerError, jettonWalletData, type JettonWalletData } from '../../chain/jetton.js';
import type { AccountId, AccountState, TransactionModel } from '../../chain/model.js';
import type { ChainSource } from '../../chain/source.js';
import { ENRICH_TIMEOUT_MS, within } from './enrich.js';
import { JettonWalletBook } from './jetton-wallets.js';
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
      const state = await this.stateAfter(tx, finality);
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
