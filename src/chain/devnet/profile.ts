// The devnet's network profile, read from the running chain: its own USDT master and DNS root
// (from the directory genesis wrote), the USDT wallet code its master hands out, and the oldest
// block it keeps (all of them: the follower starts there).
import { jettonData, JettonAnswerError } from '../jetton.js';
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
    dnsNames: Object.keys(directory.dns.names),
    startAt: 'oldest',
    oldestSeqno: await chain.getOldestAvailableSeqno(),
    testOnly: false,
  };
}

/** The code of the wallets the master hands out (`get_jetton_data`); none when it is no jetton master. */
async function walletCodeHashes(chain: DevnetChain, master: string): Promise<string[]> {
  try {
    return [(await jettonData(chain, master)).walletCode.hash().toString('hex')];
  } catch (err) {
    if (err instanceof JettonAnswerError) return [];
    throw err;
  }
}
