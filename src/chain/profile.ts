// What the service knows about the chain it follows, beyond what ChainSource answers: the one
// place components learn network facts instead of asking whether the network is the devnet.
// The devnet builds its profile from the running chain (chain/devnet/profile.ts); mainnet and
// testnet profiles are the constants below, each with where its values come from.
import { parseAccountId } from './address.js';
import type { AccountId, HashHex } from './model.js';
import type { Network } from './source.js';

export interface NetworkProfile {
  network: Network;
  /** The USDT jetton master, or null where none is known (set TONWATCH_USDT_MASTER). */
  usdtMaster: AccountId | null;
  /**
   * Code hashes of the jetton wallets that are genuine USDT wallets (what the master's
   * `get_jetton_data` hands out); empty while unknown. Deposits are matched only on the wallet the
   * master derives (`get_wallet_address`), so nothing depends on this list yet.
   */
  usdtWalletCodeHashes: HashHex[];
  /** The root DNS resolver (config parameter #4), or null while unknown. */
  dnsRoot: AccountId | null;
  /** `.ton` names known on this network (address books show them where they resolve to the account). */
  dnsNames: string[];
  /**
   * Where the follower and the consumers that follow the whole chain start: `oldest` where the
   * source's whole history fits in the event log (the devnet), else `head`.
   */
  startAt: 'oldest' | 'head';
  /** The oldest masterchain seqno history (backfill, replays) can reach, or null: ask the source. */
  oldestSeqno: number | null;
  /** Addresses shown to users carry the test-only flag (testnet). */
  testOnly: boolean;
}

/** Tether USD (USD₮) on TON mainnet: the jetton master Tether publishes for TON. */
export const MAINNET_USDT_MASTER = parseAccountId('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs');

/**
 * Mainnet's root DNS resolver: the address in mainnet config parameter #4, as the emulator's
 * bundled mainnet config carries it (and mainnet's config proofs in test/fixtures). The liteserver
 * source's profile reads param 4 from the chain at start (src/service/liteserver.ts).
 */
export const MAINNET_DNS_ROOT = '-1:e56754f83426f69b09267bd876ac97c44821345b7e266bd956a7bfbfb98df35c';

export const MAINNET_PROFILE: NetworkProfile = Object.freeze({
  network: 'mainnet',
  usdtMaster: MAINNET_USDT_MASTER,
  // Read from the master's get_jetton_data at start on liteservers (src/service/liteserver.ts).
  usdtWalletCodeHashes: [],
  dnsRoot: MAINNET_DNS_ROOT,
  // None bundled: names enter the address book as the indexer's DNS route resolves them.
  dnsNames: [],
  startAt: 'head',
  // What the configured liteservers keep: getOldestAvailableSeqno at start (src/service/liteserver.ts).
  oldestSeqno: null,
  testOnly: false,
});

export const TESTNET_PROFILE: NetworkProfile = Object.freeze({
  network: 'testnet',
  // No USDT on testnet: TONWATCH_USDT_MASTER names a test jetton when wanted.
  usdtMaster: null,
  usdtWalletCodeHashes: [],
  // Testnet config parameter #4, read from the chain at start on liteservers (src/service/liteserver.ts).
  dnsRoot: null,
  dnsNames: [],
  startAt: 'head',
  oldestSeqno: null,
  testOnly: true,
});

/** The constant profile of a real network (liteservers, and replay standing in for one). */
export function realNetworkProfile(network: 'mainnet' | 'testnet'): NetworkProfile {
  return network === 'testnet' ? TESTNET_PROFILE : MAINNET_PROFILE;
}

/** Configuration wins over the profile: `auto` keeps the profile's USDT master, an address replaces it. */
export function withOverrides(profile: NetworkProfile, overrides: { usdtMaster: string; dnsRoot?: string }): NetworkProfile {
  return {
    ...profile,
    usdtMaster: overrides.usdtMaster === 'auto' ? profile.usdtMaster : parseAccountId(overrides.usdtMaster),
    dnsRoot: overrides.dnsRoot ? parseAccountId(overrides.dnsRoot) : profile.dnsRoot,
  };
}
