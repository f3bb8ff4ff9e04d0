// Who is who on a devnet: the named wallets, the jettons and the DNS resolvers. Everything is
// derived deterministically (keys from names, contract addresses from their code and data),
// so every devnet has the same addresses.
import { Address, contractAddress, type Cell, type StateInit } from '@ton/core';
import type { AccountId } from '../model.js';
import { addressToRaw } from '../address.js';
import { MAINNET_DNS_ROOT } from '../profile.js';
import { nextResolverRecord, resolverData, walletRecord } from './dns-resolver.js';
import { JETTONS, jettonMinter, type JettonDefinition } from './jettons.js';
import { genesisWallets, type DevnetWallet } from './wallets.js';

export interface DevnetJetton extends JettonDefinition {
  master: Address;
  masterId: AccountId;
  init: StateInit;
}

export interface DevnetDns {
  /** The root resolver lives at the address of config parameter #4, as on mainnet. */
  root: Address;
  rootId: AccountId;
  rootData: Cell;
  /** The `.ton` zone resolver, deployed by the faucet at genesis. */
  zone: Address;
  zoneId: AccountId;
  zoneInit: StateInit;
  code: Cell;
  /** Names under `.ton` and the wallet each resolves to. */
  names: Record<string, string>;
}

export interface DevnetDirectory {
  wallets: DevnetWallet[];
  faucet: DevnetWallet;
  jettons: DevnetJetton[];
  dns: DevnetDns;
}

/** The root resolver sits at mainnet's root DNS address (config param #4 of the emulator's config). */
export const ROOT_DNS_ADDRESS = Address.parse(MAINNET_DNS_ROOT);

/** `.ton` names registered at genesis: `<name>.ton` resolves to the wallet of the same name. */
export const DNS_NAMES = ['alice', 'bob', 'merchant', 'exchange'];

export function buildDirectory(resolverCode: Cell): DevnetDirectory {
  const wallets = genesisWallets();
  const faucet = wallets.find((w) => w.name === 'faucet')!;
  const jettons = JETTONS.map((def) => {
    const minter = jettonMinter(def, faucet.address);
    return { ...def, master: minter.address, masterId: addressToRaw(minter.address), init: minter.init! };
  });
  const names: Record<string, string> = {};
  const zoneDomains: Record<string, Record<string, Cell>> = {};
  for (const name of DNS_NAMES) {
    const wallet = wallets.find((w) => w.name === name)!;
    names[`${name}.ton`] = name;
    zoneDomains[name] = { wallet: walletRecord(wallet.address) };
  }
  const zoneInit: StateInit = { code: resolverCode, data: resolverData(faucet.address, zoneDomains) };
  const zone = contractAddress(0, zoneInit);
  const rootData = resolverData(faucet.address, { ton: { dns_next_resolver: nextResolverRecord(zone) } });
  return {
    wallets,
    faucet,
    jettons,
    dns: {
      root: ROOT_DNS_ADDRESS,
      rootId: addressToRaw(ROOT_DNS_ADDRESS),
      rootData,
      zone,
      zoneId: addressToRaw(zone),
      zoneInit,
      code: resolverCode,
      names,
    },
  };
}
