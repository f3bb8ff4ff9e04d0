// Streaming v2 on the devnet through the real service (issue 33's acceptance), with the client written
// from the docs (test/support/v2-client.ts): with min_finality "pending" one transfer's trace arrives
// pending, confirmed, then finalized; with the default ("finalized") once; two externals with one wallet
// seqno: the loser's trace yields trace_invalidated. Auth as documented: X-API-Key and ?api_key=.
import { internal, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetChain } from '../../src/chain/devnet/chain.js';
import { signedTransfer, walletSeqno } from '../../src/chain/devnet/wallets.js';
import { normalizedHashOfMessage } from '../../src/chain/message-boc.js';
import type { TestService } from '../support/service.js';
import { openSse, openWs, type V2Event } from '../support/v2-client.js';
import { b64, startV2Devnet, until } from '../support/v2-devnet.js';

describe('streaming v2 on the devnet', () => {
  let svc: TestService;
  let key: string;
  const wallet = (name: string) => (svc.source as DevnetChain).directory!.wallets.find((w) => w.name === name)!;

  beforeAll(async () => void ({ svc, key } = await startV2Devnet()), 120_000);
  afterAll(() => svc?.close());

  it('one transfer: pending, confirmed, finalized with min_finality "pending"; once with the default', async () => {
    const bob = wallet('bob').address.toString({ bounceable: false });
    const early: V2Event[] = [];
    const late: V2Event[] = [];
    const a = await openSse(`${svc.url}/api/streaming/v2/sse`, { types: ['transactions'], addresses: [bob], min_finality: 'pending' }, { onEvent: (e) => early.push(e) }, { headers: { 'x-api-key': key } });
    const b = await openSse(`${svc.url}/streaming/v2/sse?api_key=${key}`, { types: ['transactions'], addresses: [wallet('alice').id] }, { onEvent: (e) => late.push(e) });
    expect([a.status, b.status]).toEqual([200, 200]);
    const res = await svc.api('/devnet/send', { method: 'POST', json: { from: 'alice', to: 'bob', amount: '1000000000', comment: 'v2' } });
    const { message_hash: messageHash } = (await res.json()) as { message_hash: string };
    const boc = (await (svc.source as DevnetChain).getPendingMessages()).find((m) => m.hash === messageHash)!.boc;
    const norm = b64(normalizedHashOfMessage((await import('@ton/core')).Cell.fromBase64(boc))!);
    await svc.produceBlock();
    await svc.produceBlock(); // bob's transaction, the trace's second hop
    const mine = (list: V2Event[]) => list.filter((e) => e.event === 'event' && e.data.trace_external_hash_norm === norm);
    await until(() => mine(early).filter((e) => e.data.finality === 'finalized').length > 0 && mine(late).length > 0, () => [early, late]);
    const levels = mine(early).map((e) => e.data.finality);
    expect(levels.slice(0, 2)).toEqual(['pending', 'confirmed']);
    expect(levels.slice(2).every((l) => l === 'finalized')).toBe(true);
    for (const e of mine(early)) expect(Object.keys(e.data)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'transactions']);
    // bob's transaction is among the finalized ones, with API v3's raw upper-case account
    const finalizedTxs = mine(early).filter((e) => e.data.finality === 'finalized').flatMap((e) => e.data.transactions as Array<Record<string, unknown>>);
    expect(finalizedTxs.map((t) => t.account)).toContain(wallet('bob').id.replace(/:(.*)$/, (_m, h: string) => ':' + h.toUpperCase()));
    // the default subscriber saw alice's transaction once, finalized only
    expect(mine(late).map((e) => e.data.finality)).toEqual(['finalized']);
    // every event carries an id
    for (const e of [...early, ...late]) expect(e.id).toMatch(/^-?\d+\.\d(~\d+)?$/);
    a.abort();
    b.abort();
    await svc.settle();
  });

  it('two externals with one wallet seqno: the invalidated one yields trace_invalidated (WebSocket)', async () => {
    const chain = svc.source as DevnetChain;
    const carol = wallet('carol');
    const dave = wallet('dave');
    const ws = await openWs(`${svc.url.replace('http', 'ws')}/streaming/v2/ws`, { authorization: `Bearer ${key}` });
    expect(await ws.request({ operation: 'subscribe', types: ['transactions', 'trace_invalidated'], addresses: [carol.address.toString()], min_finality: 'pending', id: 's' })).toEqual({ id: 's', status: 'subscribed' });
    const seqno = walletSeqno(carol.version, chain.pendingAccount(carol.id).data);
    const transfer = (comment: string) => signedTransfer(carol, { seqno, now: chain.now(), messages: [internal({ to: dave.address, value: toNano('0.5'), bounce: false, body: comment })] });
    const [first, second] = [await transfer('first'), await transfer('second')];
    await chain.sendExternalMessage(first.toBoc());
    await chain.sendExternalMessage(second.toBoc());
    const [won, lost] = [first, second].map((c) => b64(normalizedHashOfMessage(c)!));
    await svc.produceBlock();
    const of = (norm: string) => ws.notifications.filter((n) => n.trace_external_hash_norm === norm);
    await until(() => of(lost).some((n) => n.type === 'trace_invalidated') && of(won).some((n) => n.finality === 'finalized'), () => ws.notifications);
    expect(of(lost).map((n) => n.type === 'trace_invalidated' ? 'invalidated' : n.finality)).toEqual(['pending', 'invalidated']);
    expect(of(lost)[1]).toEqual({ type: 'trace_invalidated', trace_external_hash_norm: lost });
    expect(of(won).map((n) => n.finality)).toEqual(['pending', 'confirmed', 'finalized']);
    ws.close();
    await svc.settle();
  });
});
