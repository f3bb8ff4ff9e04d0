// Measures the devnet (a script, not a test): transactions per second for simple wallet transfers
// at full speed (signing, mempool emulation and block production all included), and RSS over a
// long run. Usage:
//   npx tsx scripts/devnet-measure.ts [--transactions 100000] [--per-block 200] [--dir /tmp/x]
// Each transfer is one external message to a wallet plus the internal message it sends: two
// transactions. Transfers go between the genesis wallets, so the account map does not grow and
// any RSS growth would come from the chain itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { internal } from '@ton/core';
import { startDevnet } from '../src/chain/devnet/index.js';
import { sendFromWallet } from '../src/chain/devnet/sender.js';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const targetTransactions = option('transactions', 20_000);
  const perBlock = option('per-block', 200);
  const dirIndex = process.argv.indexOf('--dir');
  const dataDir = dirIndex >= 0 ? process.argv[dirIndex + 1]! : mkdtempSync(join(tmpdir(), 'tonwatch-devnet-measure-'));
  const devnet = await startDevnet({ dataDir, manual: true });
  const { chain, directory } = devnet;
  const senders = directory.wallets.filter((w) => w.name !== 'mallory');
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
  console.log(`devnet at ${dataDir}; ${senders.length} senders; ${perBlock} transfers per block`);

  let transactions = 0;
  let transfers = 0;
  const started = performance.now();
  let windowStart = started;
  let windowTx = 0;
  const rssSamples: number[] = [];
  while (transactions < targetTransactions) {
    for (let i = 0; i < perBlock; i++) {
      const from = senders[transfers % senders.length]!;
      const to = senders[(transfers + 1 + (transfers % 3)) % senders.length]!;
      await sendFromWallet(chain, from, [internal({ to: to.address, value: 1_000_000n, bounce: false })]);
      transfers++;
    }
    // two ticks: the externals, then the internal messages they created
    for (const _ of [0, 1]) {
      const head = await chain.produceBlock();
      const block = await chain.getFinalizedBlock(head.seqno);
      transactions += block!.transactions.length;
      windowTx += block!.transactions.length;
    }
    const now = performance.now();
    if (now - windowStart >= 5000) {
      const rss = process.memoryUsage().rss;
      rssSamples.push(rss);
      console.log(
        `${transactions} tx, ${((windowTx * 1000) / (now - windowStart)).toFixed(0)} tx/s, rss ${mb(rss)} MB, heap ${mb(process.memoryUsage().heapUsed)} MB, head ${chain.masterchainSeqno}`,
      );
      windowStart = now;
      windowTx = 0;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`total: ${transactions} transactions in ${seconds.toFixed(1)} s = ${(transactions / seconds).toFixed(0)} tx/s`);
  if (rssSamples.length >= 2) {
    console.log(`rss first ${mb(rssSamples[0]!)} MB, last ${mb(rssSamples[rssSamples.length - 1]!)} MB, max ${mb(Math.max(...rssSamples))} MB`);
  }
  await chain.stop();
  if (dirIndex < 0) rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
