// Message body hashes carried by the chain model (MessageModel.bodyHash: the decoder's, the replay's)
// against @ton/core's hash of the body BoC, and the API v3 transaction text built with them against the
// text built by hashing every body BoC as before: the same bytes for every transaction of real devnet
// traces (the kinds contents.test.ts covers: comment transfer, jetton transfer, mint, burn, bounce,
// deploy), of the mainnet fixture blocks and of replay blocks, with and without the transaction's cell,
// under every trace context.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginCell, Cell, internal, toNano } from '@ton/core';
import { openTestDevnet, runTrace, type TestDevnet } from '../../../../test/support/devnet.js';
import { accountToAddress, addressToRaw } from '../../../chain/address.js';
import { decodeBlock } from '../../../chain/decode/index.js';
import { resolveReplayOptions } from '../../../chain/replay/options.js';
import { BlockGenerator } from '../../../chain/replay/generator.js';
import { loadTemplates } from '../../../chain/replay/templates.js';
import { mintBody } from '../../../chain/devnet/jettons.js';
import { sendFromWallet } from '../../../chain/devnet/sender.js';
import type { MessageModel, TransactionModel } from '../../../chain/model.js';
import { v3Transaction, type TraceContext } from './transactions.js';

/** Contexts a notification gives: finalized with a known external root, without a root, emulated pending. */
function contexts(txs: readonly TransactionModel[]): TraceContext[] {
  const root = txs.find((t) => t.inMessage?.type === 'external-in') ?? txs[0]!;
  const ext = root.inMessage?.type === 'external-in' ? root.inMessage.hash : null;
  return [
    { finality: 'finalized', emulated: false, traceId: root.hash, traceExternalHash: ext, traceExternalHashNorm: root.prevHash },
    { finality: 'confirmed', emulated: false, traceId: null },
    { finality: 'pending', emulated: true, traceId: root.hash, traceExternalHash: null, traceExternalHashNorm: null },
  ];
}

const messagesOf = (txs: readonly TransactionModel[]): MessageModel[] => txs.flatMap((t) => (t.inMessage ? [t.inMessage, ...t.outMessages] : t.outMessages));
const withoutBodyHashes = (tx: TransactionModel): TransactionModel => {
  const strip = ({ bodyHash: _, ...m }: MessageModel): MessageModel => m;
  return { ...tx, inMessage: tx.inMessage && strip(tx.inMessage), outMessages: tx.outMessages.map(strip) };
};

/** Every carried body hash is @ton/core's; returns how many messages carried one. */
function checkBodyHashes(txs: readonly TransactionModel[]): number {
  let carried = 0;
  for (const m of messagesOf(txs)) {
    if (m.bodyHash === undefined) continue;
    expect(m.bodyHash, m.hash).toBe(Cell.fromBase64(m.bodyBoc).hash().toString('hex'));
    carried++;
  }
  return carried;
}

/** The v3 text with the carried hashes and with every body hashed from its BoC: with its cell and without, in every context. */
function compareAll(txs: readonly TransactionModel[]): number {
  let n = 0;
  if (txs.length === 0) return 0;
  for (const ctx of contexts(txs)) {
    for (const tx of txs) {
      const bare = { ...tx, boc: undefined };
      for (const t of tx.boc ? [tx, bare] : [tx]) {
        expect(JSON.stringify(v3Transaction(t, ctx)), tx.hash).toBe(JSON.stringify(v3Transaction(withoutBodyHashes(t), ctx)));
        n++;
      }
    }
  }
  return n;
}

describe('mainnet fixture blocks', () => {
  const dir = new URL('../../../../test/fixtures/mainnet/blocks/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.boc') && !f.startsWith('account_state'));
  it('every transaction of every block byte for byte', () => {
    let txs = 0;
    let compared = 0;
    let carried = 0;
    for (const file of files) {
      const bytes = readFileSync(new URL(file, dir));
      const block = decodeBlock(bytes).transactions;
      txs += block.length;
      carried += checkBodyHashes(block);
      // the @ton/core reader's path too
      carried += checkBodyHashes(decodeBlock(Cell.fromBoc(bytes)[0]!).transactions);
      compared += compareAll(block);
    }
    expect(carried).toBeGreaterThan(0);
    expect(files.length).toBeGreaterThanOrEqual(5);
    expect(txs).toBeGreaterThanOrEqual(30);
    expect(compared).toBe(txs * 6);
  });
});

describe('replay blocks (what the benchmark and the fan-out harness publish)', () => {
  it('every transaction of 4 blocks at 10,000 tx/s byte for byte', () => {
    const generator = new BlockGenerator(resolveReplayOptions({ seed: 11, transactionsPerSecond: 10_000, blocksPerSecond: 4 }), loadTemplates());
    let compared = 0;
    let txs = 0;
    for (let i = 0; i < 4; i++) {
      const block = generator.next().transactions;
      txs += block.length;
      // the replay carries a hash for every body (its templates' hashed once)
      expect(checkBodyHashes(block)).toBe(messagesOf(block).length);
      compared += compareAll(block);
    }
    expect(txs).toBeGreaterThan(5_000);
    expect(compared).toBeGreaterThanOrEqual(txs * 3);
  });
});

describe('devnet traces', () => {
  let devnet: TestDevnet;
  beforeAll(async () => {
    devnet = await openTestDevnet();
  }, 60_000);
  afterAll(async () => {
    await devnet?.close();
  });
  const wallet = (name: string) => devnet.directory.wallets.find((w) => w.name === name)!;

  it('transfer with a comment, jetton transfer, mint, burn, bounce, deploy: every transaction byte for byte', async () => {
    const usdt = devnet.directory.jettons.find((j) => j.key === 'usdt')!;
    const traces: TransactionModel[][] = [];
    const trace = async (send: () => Promise<{ message_hash: string }>) => traces.push((await runTrace(devnet.chain, send)).transactions);
    await trace(() => devnet.control.send({ from: 'alice', to: 'bob', amount: '1500000000', comment: 'user "17" \\ ü 🚀' }));
    await trace(() => devnet.control.jettonSend({ from: 'alice', jetton: 'usdt', to: 'merchant', amount: '2500000', comment: 'order 5' }));
    await trace(() =>
      sendFromWallet(devnet.chain, devnet.directory.faucet, [
        internal({ to: usdt.master, value: toNano('0.2'), bounce: true, body: mintBody({ minter: usdt.master, owner: wallet('carol').address, amount: 777n, queryId: 91n }) }),
      ]).then((message_hash) => ({ message_hash })),
    );
    const res = await devnet.chain.runGetMethod(usdt.masterId, 'get_wallet_address', [{ type: 'slice', cell: beginCell().storeAddress(wallet('carol').address).endCell() }]);
    const carolWallet = addressToRaw((res.stack[0] as { cell: import('@ton/core').Cell }).cell.beginParse().loadAddress());
    const burnBody = beginCell().storeUint(0x595f07bc, 32).storeUint(5, 64).storeCoins(300n).storeAddress(wallet('carol').address).storeBit(0).endCell();
    await trace(() => sendFromWallet(devnet.chain, wallet('carol'), [internal({ to: accountToAddress(carolWallet), value: toNano('0.1'), bounce: true, body: burnBody })]).then((message_hash) => ({ message_hash })));
    await trace(() => devnet.control.bounce({ from: 'carol', amount: '300000000' }));
    await trace(() => devnet.control.deploy({ from: 'dave' }));
    const all = traces.flat();
    // the traces carry what the writer must get right: comments, init states, externals, bounces
    expect(all.some((t) => t.inMessage?.decoded.kind === 'text_comment')).toBe(true);
    expect(all.some((t) => t.inMessage?.hasInit)).toBe(true);
    expect(all.some((t) => t.inMessage?.bounced)).toBe(true);
    expect(all.every((t) => t.boc)).toBe(true);
    expect(checkBodyHashes(all)).toBeGreaterThan(0);
    let n = 0;
    for (const txs of traces) n += compareAll(txs);
    expect(n).toBe(all.length * 6);
  }, 120_000);
});
