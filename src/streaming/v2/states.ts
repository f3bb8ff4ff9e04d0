// `account_state_change` and `jettons_change` (confirmed and finalized only): what an account, or a jetton
// wallet, is right after one transaction, read through the chain source's proven reads and built once per
// (transaction, finality). A read is used only when it is still the state that transaction left
// (`lastTxLt` equal to its LT): an account that moved on before the read (a busy account, a replay) gets
// no notification for that transaction rather than a state it never had after it.
import { jettonWalletAddress, jettonWalletData } from '../../chain/jetton.js';
import type { AccountId, AccountState, TransactionModel } from '../../chain/model.js';
import type { ChainSource } from '../../chain/source.js';
import { ENRICH_TIMEOUT_MS, within } from './enrich.js';
import { accountStateChange, jettonsChange, readTransactionCell } from './v3/index.js';

export type StateFinality = 'confirmed' | 'finalized';

/** A built notification's JSON text and the accounts a subscriber must follow to receive it. */
export interface StateNotice {
  payload: string;
  accounts: AccountId[];
  /** Accounts its `address_book`/`metadata` cover, when it carries them (jettons_change: wallet, owner, master). */
  mentions?: AccountId[];
}

/** Messages that change a jetton wallet's balance (TEP-74 transfer, internal_transfer, burn). */
const JETTON_BALANCE_OPS = new Set([0x0f8a7ea5, 0x178d4519, 0x595f07bc]);

export const changesJettonBalance = (tx: TransactionModel): boolean =>
  !tx.aborted && tx.inMessage?.type === 'internal' && JETTON_BALANCE_OPS.has(tx.inMessage.opcode ?? -1);

export class V2StateReader {
  private readonly built = new WeakMap<TransactionModel, Map<string, Promise<StateNotice | null>>>();

  constructor(
    private readonly source: Pick<ChainSource, 'getAccountState' | 'getTransactions' | 'runGetMethod'>,
    private readonly timeoutMs = ENRICH_TIMEOUT_MS,
  ) {}

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

  /** The wallet's `jettons_change` after `tx` (a balance-changing jetton message), proven by its master. */
  jettonWallet(tx: TransactionModel, finality: StateFinality): Promise<StateNotice | null> {
    return this.once(tx, `j${finality}`, async () => {
      const state = await this.stateAfter(tx, finality);
      if (!state) return null;
      const data = await jettonWalletData(this.source, tx.account);
      // a contract that names a master which does not derive it is not that master's wallet
      if ((await jettonWalletAddress(this.source, data.jetton, data.owner)) !== tx.account) return null;
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
