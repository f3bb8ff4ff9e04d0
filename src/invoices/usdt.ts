// Which USDT counts: the master from TONWATCH_USDT_MASTER (`auto`: the devnet's own USDT on the
// devnet, the real USDT master elsewhere), and the recipient's jetton wallet as that master derives
// it with `get_wallet_address` — never the address a sender claims.
import { beginCell } from '@ton/core';
import { accountToAddress, addressToRaw, parseAccountId } from '../chain/address.js';
import type { AccountId } from '../chain/model.js';
import type { ChainSource } from '../chain/source.js';

/** The USDT master on TON mainnet. */
export const MAINNET_USDT_MASTER = parseAccountId('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs');

interface WithDirectory {
  directory?: { jettons?: Array<{ key: string; masterId: AccountId }> } | null;
}

/**
 * The USDT master for this chain source, or null when none is known (testnet with `auto`: set
 * TONWATCH_USDT_MASTER). `setting` is the configured value: `auto` or an address.
 */
export function resolveUsdtMaster(setting: string, source: ChainSource, network: 'mainnet' | 'testnet'): AccountId | null {
  if (setting !== 'auto') return parseAccountId(setting);
  if (source.network === 'devnet') {
    return (source as unknown as WithDirectory).directory?.jettons?.find((j) => j.key === 'usdt')?.masterId ?? null;
  }
  if (source.network === 'testnet' || (source.network !== 'mainnet' && network === 'testnet')) return null;
  return MAINNET_USDT_MASTER;
}

/** The owner's jetton wallet according to `master`, or null when the master cannot answer. */
export async function deriveJettonWallet(source: ChainSource, master: AccountId, owner: AccountId): Promise<AccountId | null> {
  try {
    const res = await source.runGetMethod(master, 'get_wallet_address', [
      { type: 'slice', cell: beginCell().storeAddress(accountToAddress(owner)).endCell() },
    ]);
    const item = res.stack[0];
    if (res.exitCode !== 0 || item?.type !== 'slice') return null;
    return addressToRaw(item.cell.beginParse().loadAddress());
  } catch {
    return null;
  }
}
