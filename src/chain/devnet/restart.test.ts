// Restarting the devnet on the same data dir keeps balances, block height, in-flight traces and
// the mempool — after a clean stop and after SIGKILL in the middle of timed block production.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNano } from '@ton/core';
import type { AccountState } from '../model.js';
import { settle } from './genesis.js';
import { startDevnet, type Devnet } from './index.js';
import { openTestDevnet, traceOf, transactionsAfter, type TestDevnet } from '../../../test/support/devnet.js';

let first: TestDevnet;
let reopened: Devnet | null = null;

beforeAll(async () => {
  first = await openTestDevnet();
});
afterAll(async () => {
  await reopened?.chain.stop();
  await first?.close();
});

async function balances(devnet: Devnet): Promise<Record<string, AccountState>> {
  const out: Record<string, AccountState> = {};
  for (const w of devnet.directory.wallets) out[w.name] = await devnet.chain.getAccountState(w.id);
  return out;
}

describe('devnet restart', () => {
  it('resumes with the same balances, height, in-flight trace and mempool', async () => {
    const start = first.chain.masterchainSeqno;
    const jetton = await first.control.jettonSend({ from: 'alice', jetton: 'usdt', to: 'bob', amount: '4000000', comment: 'across a restart' });
    await first.chain.produceBlock();
    await first.chain.produceBlock(); // the trace is now between the two jetton wallets
    const pending = await first.control.send({ from: 'carol', to: 'dave', amount: toNano('2').toString(), comment: 'waiting in the mempool' });
    const before = {
      head: await first.chain.getMasterchainHead(),
      balances: await balances(first),
      inflight: first.chain.inflightCount,
      mempool: await first.chain.getPendingMessages(),
    };
    expect(before.inflight).toBeGreaterThan(0);
    expect(before.mempool.map((m) => m.hash)).toEqual([pending.message_hash]);
    await first.chain.stop();

    reopened = await startDevnet({ dataDir: first.dataDir, manual: true });
    const chain = reopened.chain;
    expect(await chain.getMasterchainHead()).toEqual(before.head);
    expect(await balances(reopened)).toEqual(before.balances);
    expect(chain.inflightCount).toBe(before.inflight);
    expect(await chain.getPendingMessages()).toEqual(before.mempool);

    await settle(chain);
    const txs = await transactionsAfter(chain, start);
    const trace = traceOf(txs, jetton.message_hash);
    const bob = reopened.directory.wallets.find((w) => w.name === 'bob')!.id;
    const notify = trace.find((t) => t.account === bob)!;
    expect(notify.inMessage!.decoded).toMatchObject({ kind: 'jetton_notify', amount: 4_000_000n, forwardPayload: { comment: 'across a restart' } });
    const dave = reopened.directory.wallets.find((w) => w.name === 'dave')!.id;
    const paid = traceOf(txs, pending.message_hash).find((t) => t.account === dave)!;
    expect(paid.inMessage!.decoded).toEqual({ kind: 'text_comment', text: 'waiting in the mempool' });
  });

  it('produces timed blocks after a restart and tells head listeners', async () => {
    await reopened!.chain.stop();
    reopened = await startDevnet({ dataDir: first.dataDir, blockIntervalMs: 100 });
    const from = reopened.chain.masterchainSeqno;
    const heads: number[] = [];
    await new Promise<void>((resolve) => {
      const stop = reopened!.chain.onMasterchainHead((seqno) => {
        heads.push(seqno);
        if (heads.length === 3) {
          stop();
          resolve();
        }
      });
    });
    expect(heads).toEqual([from + 1, from + 2, from + 3]);
    await reopened.chain.stop();
    reopened = null;
  });

  it('survives SIGKILL during timed block production with storage and state consistent', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../../../test/support/devnet-child.ts', import.meta.url)), first.dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let lastHead = 0;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child made no progress: ${stderr}`)), 30_000);
      child.stdout.on('data', (d: Buffer) => {
        for (const m of d.toString().matchAll(/head (\d+)/g)) lastHead = Number(m[1]);
        if (lastHead > 0 && ++seen >= 8) {
          clearTimeout(timer);
          resolve();
        }
      });
      let seen = 0;
      child.on('exit', (code) => reject(new Error(`child exited (${code}): ${stderr}`)));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));

    reopened = await startDevnet({ dataDir: first.dataDir, manual: true });
    const chain = reopened.chain;
    const head = await chain.getMasterchainHead();
    expect(head.seqno).toBeGreaterThanOrEqual(lastHead);
    // every account's last transaction is in storage: state and blocks were written together
    for (const w of reopened.directory.wallets) {
      const state = await chain.getAccountState(w.id);
      const [last] = await chain.getTransactions(w.id, state.lastTxLt, state.lastTxHash, 1);
      expect(last!.mcSeqno).toBeLessThanOrEqual(head.seqno);
    }
    expect((await chain.getFinalizedBlock(head.seqno))!.masterchain).toEqual(head);
    await settle(chain);
    expect(chain.inflightCount).toBe(0);
  });
});
