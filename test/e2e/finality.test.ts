// Finality levels through the real service on the devnet (issue 32's acceptance): a transfer sent with
// /devnet/send is seen pending, confirmed, then finalized, each once, by an in-process observer; two
// externals with one wallet seqno end one finalized, one invalidated with its reason; a provisional trace
// never outlives its bound; and the durable log is what it was.
import { Cell, internal, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetChain } from '../../src/chain/devnet/chain.js';
import { signedTransfer, walletSeqno } from '../../src/chain/devnet/wallets.js';
import { normalizedHashOfMessage } from '../../src/chain/message-boc.js';
import type { ProvisionalEvent } from '../../src/pipeline/finality/types.js';
import { startTestService, type TestService } from '../support/service.js';

const LAG_MS = 400;

/** Collects the tracker's events; `until` resolves once `done` holds for what was collected. */
function observe(svc: TestService) {
  const events: ProvisionalEvent[] = [];
  const waiters: Array<{ done: () => boolean; resolve: () => void }> = [];
  svc.finality!.subscribe((e) => {
    events.push(e);
    for (const w of waiters.splice(0)) (w.done() ? w.resolve : () => waiters.push(w))();
  });
  const until = (done: () => boolean, timeoutMs = 20_000) =>
    done()
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`timed out; saw ${JSON.stringify(events.map((e) => [e.trace.slice(0, 8), e.finality]))}`)), timeoutMs);
          waiters.push({ done, resolve: () => (clearTimeout(timer), resolve()) });
        });
  const of = (trace: string) => events.filter((e) => e.trace === trace);
  return { events, until, of };
}

describe('finality levels on the devnet', () => {
  let svc: TestService;
  let seen: ReturnType<typeof observe>;

  beforeAll(async () => {
    svc = await startTestService({ env: { TONWATCH_DEVNET_CONFIRMATION_LAG_MS: String(LAG_MS), TONWATCH_PROVISIONAL_MAX_AGE_SECONDS: '2' } });
    seen = observe(svc);
  }, 120_000);
  afterAll(async () => {
    await svc?.close();
  });

  it('a transfer sent with /devnet/send is observed pending, confirmed, then finalized, each once', async () => {
    const res = await svc.api('/devnet/send', { method: 'POST', json: { from: 'alice', to: 'bob', amount: '1000000000', comment: 'finality' } });
    expect(res.status).toBe(200);
    const { message_hash: messageHash } = (await res.json()) as { message_hash: string };
    const pending = seen.events.find((e) => e.messageHash === messageHash);
    expect(pending?.finality).toBe('pending');
    const boc = (await (svc.source as DevnetChain).getPendingMessages()).find((m) => m.hash === messageHash)!.boc;
    const trace = normalizedHashOfMessage(Cell.fromBase64(boc))!;
    expect(pending!.trace).toBe(trace);

    const seqno = await svc.produceBlock();
    await seen.until(() => seen.of(trace).some((e) => e.finality === 'finalized'));
    await svc.produceBlock(); // the transfer's second hop: no new level for this trace
    const levels = seen.of(trace);
    expect(levels.map((e) => e.finality)).toEqual(['pending', 'confirmed', 'finalized']);
    const [, confirmed, finalized] = levels as [ProvisionalEvent, Extract<ProvisionalEvent, { finality: 'confirmed' }>, Extract<ProvisionalEvent, { finality: 'finalized' }>];
    // confirmed: the shard block the masterchain block `seqno` then committed, shown the lag before it
    const block = (await svc.source.getFinalizedBlock(seqno))!;
    expect(block.shards.map(({ workchain, shard, seqno: s, rootHash, fileHash }) => ({ workchain, shard, seqno: s, rootHash, fileHash }))).toContainEqual(confirmed.block);
    expect(finalized.mcSeqno).toBe(seqno);
    expect(finalized.transaction.hash).toBe(confirmed.transaction.hash);
    expect(finalized.at - confirmed.at).toBeGreaterThanOrEqual(LAG_MS - 50);
    expect(svc.finality!.inFlight().filter((e) => e.trace === trace)).toEqual([]);
    // the durable log holds that transaction once, as before
    const logged = (await svc.events.readAfter(0, 100_000)).flatMap((b) => b.events).filter((e) => e.type === 'transaction' && e.tx.hash === finalized.transaction.hash);
    expect(logged).toHaveLength(1);
  });

  it('two externals with one wallet seqno both go pending; one is finalized, the other invalidated with its reason', async () => {
    const chain = svc.source as DevnetChain;
    const carol = chain.directory!.wallets.find((w) => w.name === 'carol')!;
    const dave = chain.directory!.wallets.find((w) => w.name === 'dave')!;
    const seqno = walletSeqno(carol.version, chain.pendingAccount(carol.id).data);
    const transfer = (comment: string) =>
      signedTransfer(carol, { seqno, now: chain.now(), messages: [internal({ to: dave.address, value: toNano('0.5'), bounce: false, body: comment })] });
    const [first, second] = [await transfer('first'), await transfer('second')];
    await chain.sendExternalMessage(first.toBoc());
    await chain.sendExternalMessage(second.toBoc());
    const traces = [first, second].map((c) => normalizedHashOfMessage(c)!);
    expect(traces.map((t) => seen.of(t).map((e) => e.finality))).toEqual([['pending'], ['pending']]);

    await svc.produceBlock();
    await seen.until(() => traces.every((t) => seen.of(t).some((e) => e.finality === 'finalized' || e.finality === 'invalidated')));
    expect(seen.of(traces[0]!).map((e) => e.finality)).toEqual(['pending', 'confirmed', 'finalized']);
    const loser = seen.of(traces[1]!);
    expect(loser.map((e) => e.finality)).toEqual(['pending', 'invalidated']);
    expect(loser[1]).toMatchObject({ reason: 'rejected', from: 'pending' });
    expect((loser[1] as { detail: string }).detail).toMatch(/exit code/);
    const metrics = await (await svc.api('/metrics')).text();
    expect(metrics).toMatch(/tonwatch_finality_invalidations_total\{reason="rejected"\} [1-9]/);
    expect(metrics).toMatch(/tonwatch_finality_events_total\{level="confirmed"\} [1-9]/);
    await svc.settle();
  });

  it('a candidate that loses: its confirmed trace invalidated, the winning block\'s trace finalized', async () => {
    const armed = await svc.api('/devnet/candidates/lose', { method: 'POST' });
    expect(await armed.json()).toEqual({ armed: true });
    const hashes: string[] = [];
    for (const [from, to] of [['alice', 'carol'], ['dave', 'bob']] as const) {
      const res = await svc.api('/devnet/send', { method: 'POST', json: { from, to, amount: '2000000', comment: `candidate ${from}` } });
      hashes.push(((await res.json()) as { message_hash: string }).message_hash);
    }
    const [victim, survivor] = hashes.map((h) => seen.events.find((e) => e.messageHash === h)!.trace) as [string, string];
    const seqno = await svc.produceBlock();
    await seen.until(() => seen.of(victim).some((e) => e.finality === 'invalidated') && seen.of(survivor).some((e) => e.finality === 'finalized'));
    const lost = seen.of(victim);
    expect(lost.map((e) => e.finality)).toEqual(['pending', 'confirmed', 'invalidated']);
    const confirmedIn = (lost[1] as Extract<ProvisionalEvent, { finality: 'confirmed' }>).block;
    expect(lost[2]).toMatchObject({ reason: 'candidate_lost', from: 'confirmed' });
    // the masterchain committed another block for that shard and seqno, with the survivor and without the victim
    const block = (await svc.source.getFinalizedBlock(seqno))!;
    const winner = block.shards.find((s) => s.workchain === confirmedIn.workchain && s.seqno === confirmedIn.seqno)!;
    expect(winner.rootHash).not.toBe(confirmedIn.rootHash);
    expect(block.transactions.map((t) => t.inMessage?.hash)).not.toContain(hashes[0]);
    expect(block.transactions.map((t) => t.inMessage?.hash)).toContain(hashes[1]);
    expect(seen.of(survivor).map((e) => e.finality)).toEqual(['pending', 'confirmed', 'finalized']);
    // nothing of the victim ever lands
    await svc.settle();
    expect(seen.of(victim)).toHaveLength(3);
    expect(await (svc.source as DevnetChain).getPendingMessages()).toEqual([]);
  });

  it('a provisional trace never outlives its bound: unfinalized, it is invalidated as expired', async () => {
    const res = await svc.api('/devnet/send', { method: 'POST', json: { from: 'bob', to: 'alice', amount: '1000000', comment: 'left waiting' } });
    const { message_hash: messageHash } = (await res.json()) as { message_hash: string };
    const trace = seen.events.find((e) => e.messageHash === messageHash)!.trace;
    const started = Date.now();
    await seen.until(() => seen.of(trace).some((e) => e.finality === 'invalidated'), 10_000);
    // the bound is 2 s, swept at least every 200 ms
    expect(Date.now() - started).toBeLessThan(2_000 + 1_500);
    expect(seen.of(trace).map((e) => e.finality)).toEqual(['pending', 'invalidated']);
    expect(seen.of(trace)[1]).toMatchObject({ reason: 'expired' });
    expect(svc.finality!.inFlight()).toEqual([]);
    // a trace invalidated by the bound that lands after all: no level after invalidated; the log has it
    const seqno = await svc.produceBlock();
    expect(seen.of(trace).map((e) => e.finality)).toEqual(['pending', 'invalidated']);
    expect((await svc.source.getFinalizedBlock(seqno))!.transactions.some((t) => t.inMessage?.hash === messageHash)).toBe(true);
    const ready = (await (await svc.api('/readyz')).json()) as { checks?: Record<string, unknown> };
    expect(JSON.stringify(ready)).toMatch(/"levels":\["pending","confirmed","finalized"\]/);
    await svc.settle();
  });
});
