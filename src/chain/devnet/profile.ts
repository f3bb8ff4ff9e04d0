// The devnet's network profile, read from the running chain: its own USDT master and DNS root
// (from the directory genesis wrote), the USDT wallet code its master hands out, and the oldest
// block it keeps (all of them: the follower starts there).
import type { NetworkProfile } from '../profile.js';
import type { DevnetChain } from './chain.js';

export async function devnetProfile(chain: DevnetChain): Promise<NetworkProfile> {
  const directory = chain.directory;
  if (!directory) throw new Error('devnet genesis did not run');
  const usdtMaster = directory.jettons.find((j) => j.key === 'usdt')?.masterId ?? null;
  return {
    network: 'devnet',
    usdtMaster,
    usdtWalletCodeHashes: usdtMaster ? await walletCodeHashes(chain, usdtMaster) : [],
    dnsRoot: directory.dns.rootId,
    startAt: 'oldest',
    oldestSeqno: await chain.getOldestAvailableSeqno(),
    testOnly: false,
  };
}

/** TEP-74 `get_jetton_data`: (total_supply, mintable, admin, content, jetton_wallet_code). */
async function walletCodeHashes(chain: DevnetChain, master: string): Promise<string[]> {
  const res = await chain.runGetMethod(master, 'get_jetton_data');
  const code = res.stack[4];
  if (res.exitCode !== 0 || code?.type !== 'cell') return [];
  return [code.cell.hash().toString('hex')];
}
