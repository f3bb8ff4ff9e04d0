// The states accounts have after the non-final shard blocks the source showed: what a confirmed
// `account_state_change` reports, since the chain source's reads see finalized state only. A block's states
// come from its own state update (chain/block-states.ts), read on first ask and only for the account asked
// about; the newest blocks are kept up to a byte bound (the BoCs), the oldest dropped first.
import { accountStatesAfterBlock } from '../../chain/block-states.js';
import type { AccountId, AccountStateHashes, TransactionModel } from '../../chain/model.js';
import type { NonFinalBlock } from '../../chain/source.js';

/** BoC bytes kept by default: a few minutes of busy mainnet shard blocks. */
export const NON_FINAL_STATES_BYTES = 32 * 1024 * 1024;

interface ShownBlock {
  block: NonFinalBlock;
  /** Read on first ask: every account with a transaction here, at its last one. */
  states?: Map<AccountId, AccountStateHashes>;
}

export class NonFinalStates {
  /** `account:lt` of each transaction in a kept block → that block. */
  private readonly byTx = new Map<string, ShownBlock>();
  private readonly blocks: ShownBlock[] = [];
  private bytes = 0;
  /** Blocks whose state update could not be read (a source's BoC that is not its block). */
  unreadable = 0;

  constructor(private readonly maxBytes = NON_FINAL_STATES_BYTES) {}

  /** Keeps a shown block (one without a BoC proves no state: skipped). */
  add(block: NonFinalBlock): void {
    if (!block.boc || block.transactions.length === 0) return;
    const shown: ShownBlock = { block };
    for (const tx of block.transactions) this.byTx.set(key(tx.account, tx.lt), shown);
    this.blocks.push(shown);
    this.bytes += block.boc.length;
    while (this.bytes > this.maxBytes && this.blocks.length > 1) this.drop(this.blocks.shift()!);
  }

  /**
   * The account's state right after `tx`, when a kept non-final block holds `tx` as its account's last
   * transaction there; null otherwise (another transaction of the account followed in the block, or the
   * block is not kept).
   */
  stateAfter(tx: TransactionModel): AccountStateHashes | null {
    const shown = this.byTx.get(key(tx.account, tx.lt));
    if (!shown) return null;
    if (!shown.states) {
      try {
        const { block } = shown;
        shown.states = accountStatesAfterBlock(block.boc!, block.id.rootHash, block.transactions.map((t) => t.account));
      } catch {
        this.unreadable++;
        shown.states = new Map();
      }
    }
    const state = shown.states.get(tx.account);
    return state && state.lastTxLt === tx.lt && state.lastTxHash === tx.hash ? state : null;
  }

  get size(): number {
    return this.blocks.length;
  }

  private drop(shown: ShownBlock): void {
    this.bytes -= shown.block.boc!.length;
    for (const tx of shown.block.transactions) {
      const k = key(tx.account, tx.lt);
      if (this.byTx.get(k) === shown) this.byTx.delete(k);
    }
  }
}

const key = (account: AccountId, lt: bigint) => `${account}:${lt}`;
