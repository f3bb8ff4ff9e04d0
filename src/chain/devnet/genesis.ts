// Genesis of a new devnet, through real transactions so the first blocks hold realistic history:
// the zero state has only the funded faucet and the root DNS resolver; then the faucet funds the
// wallets and deploys the `.ton` zone resolver, every wallet deploys itself with its first
// external message (a transfer back to the faucet, so each has an outgoing transaction), and the
// faucet deploys the jetton minters and mints to the holders. Each step checks chain state, so a
// genesis interrupted by a crash resumes where it stopped.
import { Cell, internal, toNano, type MessageRelaxed } from '@ton/core';
import type { DevnetChain } from './chain.js';
import { buildDirectory, type DevnetDirectory } from './directory.js';
import { compileResolver } from './dns-resolver.js';
import { zeroStateAccount } from './emulator.js';
import { mintBody } from './jettons.js';
import { pendingDeployed, pendingSeqno, sendFromWallet } from './sender.js';

export const FAUCET_GENESIS_BALANCE = toNano('100000000');
const ROOT_RESOLVER_BALANCE = toNano('10');
const WALLET_FUNDING: Record<string, bigint> = { mallory: toNano('1000') };
const DEFAULT_WALLET_FUNDING = toNano('10000');
const MAX_GENESIS_BLOCKS = 32;

const META_RESOLVER_CODE = 'dns_resolver_code';
const META_ZERO_STATE = 'zero_state';
const META_GENESIS = 'genesis';

/** The resolver code this chain deployed; compiled and remembered on first start. */
async function resolverCode(chain: DevnetChain): Promise<Cell> {
  const saved = chain.getMeta(META_RESOLVER_CODE);
  if (saved) return Cell.fromBase64(saved);
  const code = await compileResolver();
  chain.setMeta(META_RESOLVER_CODE, code.toBoc().toString('base64'));
  return code;
}

/** Produces blocks until no trace is in flight and the mempool is empty (at once: no confirmation lag). */
export async function settle(chain: DevnetChain, maxBlocks = MAX_GENESIS_BLOCKS): Promise<void> {
  for (let i = 0; i < maxBlocks && (chain.inflightCount > 0 || chain.mempoolSize > 0); i++) {
    await chain.produceBlock({ confirmationLagMs: 0 });
  }
  if (chain.inflightCount > 0 || chain.mempoolSize > 0) {
    throw new Error(`traces still in flight after ${maxBlocks} blocks`);
  }
}

export async function runGenesis(chain: DevnetChain): Promise<DevnetDirectory> {
  const directory = buildDirectory(await resolverCode(chain));
  if (chain.getMeta(META_GENESIS) === 'done') return directory;
  const { faucet, dns } = directory;

  if (!chain.getMeta(META_ZERO_STATE) && chain.masterchainSeqno === 0) {
    const faucetInit = faucet.contract.init;
    chain.writeZeroState([
      [faucet.id, zeroStateAccount(faucet.address, faucetInit.code, faucetInit.data, FAUCET_GENESIS_BALANCE)],
      [dns.rootId, zeroStateAccount(dns.root, dns.code, dns.rootData, ROOT_RESOLVER_BALANCE)],
    ]);
    chain.setMeta(META_ZERO_STATE, 'done');
  }

  if (pendingSeqno(chain, faucet) === 0) {
    const funding = directory.wallets
      .filter((w) => w !== faucet)
      .map((w) =>
        internal({ to: w.address, value: WALLET_FUNDING[w.name] ?? DEFAULT_WALLET_FUNDING, bounce: false, body: 'devnet genesis funding' }),
      );
    await sendFromWallet(chain, faucet, [
      ...funding,
      internal({ to: dns.zone, value: toNano('1'), bounce: false, init: dns.zoneInit }),
      // a masterchain transaction in the first blocks: consumers must handle both chains
      internal({ to: dns.root, value: toNano('1'), bounce: true }),
    ]);
  }
  await settle(chain);

  for (const wallet of directory.wallets) {
    if (wallet === faucet || pendingDeployed(chain, wallet)) continue;
    const value = wallet.name === 'merchant' ? toNano('1') : toNano('0.1');
    await sendFromWallet(chain, wallet, [
      internal({ to: faucet.address, value, bounce: true, body: `hello from ${wallet.name}` }),
    ]);
  }
  if (pendingSeqno(chain, faucet) === 1) {
    const mints: MessageRelaxed[] = [];
    let queryId = 1n;
    for (const jetton of directory.jettons) {
      jetton.holders.forEach((holderName, i) => {
        const holder = directory.wallets.find((w) => w.name === holderName)!;
        mints.push(
          internal({
            to: jetton.master,
            value: toNano('0.2'),
            bounce: true,
            init: i === 0 ? jetton.init : undefined,
            body: mintBody({ minter: jetton.master, owner: holder.address, amount: jetton.mintPerHolder, queryId: queryId++ }),
          }),
        );
      });
    }
    await sendFromWallet(chain, faucet, mints);
  }
  await settle(chain);
  chain.setMeta(META_GENESIS, 'done');
  return directory;
}
