// Which USDT counts: the network profile's USDT master (TONWATCH_USDT_MASTER, or with `auto` the
// devnet's own USDT on the devnet and the real USDT master elsewhere), and the recipient's jetton
// wallet as that master derives it with `get_wallet_address` — never the address a sender claims.
import { jettonWalletAddress } from '../chain/jetton.js';
import type { AccountId } from '../chain/model.js';
import type { ChainSource } from '../chain/source.js';

/** The owner's jetton wallet according to `master`, or null when the master cannot answer. */
export async function deriveJettonWallet(source: ChainSource, master: AccountId, owner: AccountId): Promise<AccountId | null> {
  try {
    return await jettonWalletAddress(source, master, owner);
  } catch {
    return null;
  }
}
