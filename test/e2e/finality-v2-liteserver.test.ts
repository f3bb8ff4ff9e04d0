// Finality levels end to end over the liteserver protocol: a spawned `tonwatch devnet serve` is the chain
// (its shard blocks non-final for most of each interval, served by liteServer.nonfinal.getPendingShardBlocks),
// and tonwatch follows it with TONWATCH_CHAIN=liteserver. A transfer this process sends through its source
// (the only pending a liteserver source can know) reaches a Streaming v2 subscriber with min_finality
// "pending" as pending, then confirmed, then finalized, in that order, each once for the trace's first
// transaction; the sender's account_state_change comes confirmed (from the checked non-final block's state
// update) before the trace is finalized, then finalized, both the state that transaction left.
import { Cell, internal, loadTransaction, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWallet, signedTransfer } from '../../src/chain/devnet/wallets.js';
import { normalizedHashOfMessage } from '../../src/chain/message-boc.js';
import { startDevnetServe, until, type DevnetServe } from '../cluster/support.js';
import { startTestService, type TestService } from '../support/service.js';
import { openSse, type V2Event } from '../support/v2-client.js';

describe('finality levels through Streaming v2, following a devnet over the liteserver protocol', () => {
  let devnet: DevnetServe | undefined;
  let svc: TestService | undefined;

  beforeAll(async () => {
    devnet = await startDevnetServe({ TONWATCH_BLOCK_INTERVAL_MS: '2000', TONWATCH_DEVNET_CONFIRMATION_LAG_MS: '1500' });
    svc = await startTestService({ env: { TONWATCH_CHAIN: 'liteserver', TONWATCH_LITESERVER_CONFIG: devnet.globalConfig, TONWATCH_NETWORK: 'testnet', TONWATCH_TRUST: 'fast' } });
  }, 120_000);

  afterAll(async () => {
    await svc?.close();
    if (devnet && devnet.child.exitCode === null) devnet.child.kill('SIGKILL');
    await devnet?.exited;
  });

  it('one transfer: pending, confirmed, then finalized, each once, in order', async () => {
    const s = svc!;
    const key = await s.key('streaming');
    const alice = createWallet('alice', 'v4');
    const bob = createWallet('bob', 'v5r1');
    await until(async () => s.events.headPosition() !== null, 'the follower appending blocks', 60_000);
    const events: V2Event[] = [];
    const sse = await openSse(`${s.url}/api/streaming/v2/sse`, { types: ['transactions', 'account_state_change'], addresses: [alice.address.toString({ bounceable: false })], min_finality: 'pending' }, { onEvent: (e) => events.push(e) }, { headers: { 'x-api-key': key } });
    expect(sse.status).toBe(200);

    const { stack } = await s.source.runGetMethod(alice.id, 'seqno');
    const seqno = Number((stack[0] as { type: 'int'; value: bigint }).value);
    const message = await signedTransfer(alice, { seqno, now: Math.floor(Date.now() / 1000), messages: [internal({ to: bob.address, value: toNano('0.2'), bounce: false, body: 'v2 over liteserver' })] });
    const norm = Buffer.from(normalizedHashOfMessage(message)!, 'hex').toString('base64');
    await s.source.sendExternalMessage(message.toBoc());

    const mine = () => events.filter((e) => e.event === 'event' && e.data.trace_external_hash_norm === norm);
    await until(async () => mine().some((e) => e.data.finality === 'finalized'), 'the trace finalized on the stream', 30_000);
    const levels = mine().map((e) => e.data.finality);
    expect(levels).toEqual(['pending', 'confirmed', 'finalized']);
    // confirmed and finalized carry alice's transaction, the same one
    const txHash = (e: V2Event) => (e.data.transactions as Array<{ hash: string }>).map((t) => t.hash);
    const [, confirmed, finalized] = mine();
    expect(txHash(confirmed!)).toHaveLength(1);
    expect(txHash(finalized!)).toEqual(txHash(confirmed!));

    // alice's state: confirmed before the trace's finalized notification, then finalized; both what the transaction left
    const states = () => events.filter((e) => e.event === 'event' && e.data.type === 'account_state_change');
    await until(async () => states().some((e) => e.data.finality === 'finalized'), 'the finalized account state', 30_000);
    expect(states().map((e) => e.data.finality)).toEqual(['confirmed', 'finalized']);
    expect(events.indexOf(states()[0]!)).toBeLessThan(events.indexOf(finalized!));
    const now = await s.source.getAccountState(alice.id);
    const [tx] = await s.source.getTransactions(alice.id, now.lastTxLt, now.lastTxHash, 1);
    expect(Buffer.from(tx!.hash, 'hex').toString('base64')).toBe(txHash(finalized!)[0]);
    const left = loadTransaction(Cell.fromBase64(tx!.boc!).beginParse()).stateUpdate.newHash.toString('base64');
    for (const e of states()) {
      expect((e.data as Record<string, any>).state).toMatchObject({ hash: left, balance: now.balance.toString(), account_status: 'active', data_hash: Cell.fromBase64(now.data!).hash().toString('base64') });
    }
    sse.abort();
  }, 90_000);
});
