// Helpers for tests that run on a real devnet: a fresh chain in a temp dir (manual blocks), and
// reading what a trace did from the finalized blocks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { toErrorResponse } from '../../src/errors.js';
import type { HashHex, TransactionModel } from '../../src/chain/model.js';
import type { DevnetChain, DevnetChainOptions } from '../../src/chain/devnet/chain.js';
import { settle } from '../../src/chain/devnet/genesis.js';
import { devnetRoutes } from '../../src/chain/devnet/http.js';
import { startDevnet, type Devnet } from '../../src/chain/devnet/index.js';
import { rejectLossyJsonNumbers } from '../../src/http/json-numbers.js';

export interface TestDevnet extends Devnet {
  dataDir: string;
  /** Stops the chain and deletes its data dir. */
  close(): Promise<void>;
}

export async function openTestDevnet(options: Partial<DevnetChainOptions> = {}): Promise<TestDevnet> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tonwatch-devnet-test-'));
  const devnet = await startDevnet({ manual: true, ...options, dataDir });
  return {
    ...devnet,
    dataDir,
    close: async () => {
      await devnet.chain.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The devnet control API alone on a free port (errors answered as the service answers them). */
export async function serveControlApi(devnet: Devnet): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify();
  app.setErrorHandler((e, _req, reply) => {
    const r = toErrorResponse(e);
    reply.code(r.statusCode).send(r.body);
  });
  app.addHook('preValidation', rejectLossyJsonNumbers);
  await app.register(devnetRoutes, { control: devnet.control });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}

/** Every transaction of the masterchain blocks after `afterSeqno`, in block order. */
export async function transactionsAfter(chain: DevnetChain, afterSeqno: number): Promise<TransactionModel[]> {
  const txs: TransactionModel[] = [];
  const head = chain.masterchainSeqno;
  for (let seqno = afterSeqno + 1; seqno <= head; seqno++) {
    const block = await chain.getFinalizedBlock(seqno);
    txs.push(...block!.transactions);
  }
  return txs;
}

/** Submits with `send`, produces blocks until the trace completes, and returns the trace's transactions in order. */
export async function runTrace(
  chain: DevnetChain,
  send: () => Promise<{ message_hash: HashHex }>,
): Promise<{ rootMessage: HashHex; transactions: TransactionModel[] }> {
  const before = chain.masterchainSeqno;
  const { message_hash } = await send();
  await settle(chain);
  return { rootMessage: message_hash, transactions: traceOf(await transactionsAfter(chain, before), message_hash) };
}

/** The transactions caused by `rootMessage`, following out-message hashes to the in-message hashes they became. */
export function traceOf(transactions: TransactionModel[], rootMessage: HashHex): TransactionModel[] {
  const byInMessage = new Map<HashHex, TransactionModel>();
  for (const tx of transactions) if (tx.inMessage) byInMessage.set(tx.inMessage.hash, tx);
  const trace: TransactionModel[] = [];
  const queue = [rootMessage];
  while (queue.length > 0) {
    const tx = byInMessage.get(queue.shift()!);
    if (!tx) continue;
    trace.push(tx);
    for (const out of tx.outMessages) if (out.type === 'internal') queue.push(out.hash);
  }
  return trace;
}
