// Streaming v2 finalized `trace` and `actions` over whole traces, through the real service on the devnet
// (a tick executes one hop of every trace, so every trace spans blocks). A TON transfer and a jetton
// transfer each give exactly one `actions` and one `trace` notification, in the block that completes the
// trace; their values are compared with the chain (the trace's transactions found independently from the
// finalized blocks by following messages, jetton wallets through get_wallet_address). A client that
// disconnects in the middle of a trace and resumes with its last id gets the completion exactly once, with
// the ids a client that stayed connected saw.
import { Cell } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetChain } from '../../src/chain/devnet/chain.js';
import { jettonWalletOf } from '../../src/chain/devnet/inputs.js';
import { normalizedHashOfMessage } from '../../src/chain/message-boc.js';
import type { TransactionModel } from '../../src/chain/model.js';
import { traceOf, transactionsAfter } from '../support/devnet.js';
import type { TestService } from '../support/service.js';
import { openSse, type V2Event } from '../support/v2-client.js';
import { b64, startV2Devnet, until, v3 } from '../support/v2-devnet.js';

type Node = { tx_hash: string; in_msg_hash?: string; children: Node[] };
const flatten = (n: Node): string[] => [n.tx_hash, ...n.children.flatMap(flatten)];
const events = (list: V2Event[], type: string, norm: string) => list.filter((e) => e.event === 'event' && e.data.type === type && e.data.trace_external_hash_norm === norm);

describe('streaming v2 trace and actions of whole traces on the devnet', () => {
  let svc: TestService;
  let key: string;
  let chain: DevnetChain;
  const wallet = (name: string) => chain.directory!.wallets.find((w) => w.name === name)!;
  const sse = (subscription: Record<string, unknown>, list: V2Event[], lastEventId?: string) =>
    openSse(`${svc.url}/streaming/v2/sse?api_key=${key}`, subscription, { onEvent: (e) => list.push(e) }, { lastEventId });
  /** Sends, returns the root message hash and its TEP-467 norm (base64), before any block runs it. */
  const submit = async (path: string, json: Record<string, unknown>) => {
    const res = await svc.api(path, { method: 'POST', json });
    expect(res.status).toBe(200);
    const { message_hash } = (await res.json()) as { message_hash: string };
    const boc = (await chain.getPendingMessages()).find((m) => m.hash === message_hash)!.boc;
    return { root: message_hash, norm: b64(normalizedHashOfMessage(Cell.fromBase64(boc))!) };
  };
  /** The trace's transactions as the chain has them, by following out-messages to the transactions they became. */
  const chainTrace = async (afterSeqno: number, root: string): Promise<TransactionModel[]> => traceOf(await transactionsAfter(chain, afterSeqno), root);

  beforeAll(async () => void ({ svc, key, chain } = await startV2Devnet()), 120_000);
  afterAll(() => svc?.close());

  it('a TON transfer: one finalized actions (ton_transfer) and one trace with every transaction, in the completing block', async () => {
    const [alice, bob] = [wallet('alice'), wallet('bob')];
    const before = chain.masterchainSeqno;
    const { root, norm } = await submit('/devnet/send', { from: 'alice', to: 'bob', amount: '1234000000', comment: 'whole' });
    const got: V2Event[] = [];
    const only: V2Event[] = [];
    const a = await sse({ types: ['transactions', 'actions', 'trace'], addresses: [alice.id], trace_external_hash_norms: [norm] }, got);
    // a trace subscriber that did not ask for actions still gets them inside `trace`, as Go's TraceNotification carries them
    const b = await sse({ types: ['trace'], trace_external_hash_norms: [norm] }, only);
    const booked: V2Event[] = [];
    const c = await sse({ types: ['actions'], addresses: [bob.id], include_address_book: true }, booked);
    await svc.settle();
    await until(() => events(got, 'actions', norm).length > 0 && events(got, 'trace', norm).length > 0 && events(only, 'trace', norm).length > 0 && events(booked, 'actions', norm).length > 0, () => [got, only, booked]);
    await svc.produceBlock(); // nothing more comes for a completed trace
    await new Promise((r) => setTimeout(r, 300));

    const txs = await chainTrace(before, root);
    expect(txs.length).toBe(2);
    const [send] = txs as [TransactionModel];
    const out = send.outMessages.find((m) => m.type === 'internal')!;
    expect(new Set(txs.map((t) => t.mcSeqno)).size).toBe(2); // the trace spans two blocks

    const actions = events(got, 'actions', norm);
    expect(actions).toHaveLength(1);
    expect(Object.keys(actions[0]!.data)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'actions']);
    expect(actions[0]!.data.finality).toBe('finalized');
    const list = actions[0]!.data.actions as Array<Record<string, any>>;
    expect(list.map((x) => x.type)).toEqual(['ton_transfer']);
    expect(list[0]!.details).toEqual({ source: v3(alice.id), destination: v3(bob.id), value: out.value.toString(), comment: 'whole', encrypted: false });
    // as API v3 classifies it: the transaction that received the value
    expect(list[0]!.transactions).toEqual([b64(txs.find((t) => t.inMessage?.hash === out.hash)!.hash)]);
    expect(list[0]!.trace_external_hash_norm).toBe(norm);

    const traces = events(got, 'trace', norm);
    expect(traces).toHaveLength(1);
    const t = traces[0]!.data;
    expect(Object.keys(t)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'trace', 'transactions', 'actions']);
    expect(flatten(t.trace as Node).sort()).toEqual(txs.map((x) => b64(x.hash)).sort());
    expect((t.trace as Node).tx_hash).toBe(b64(send.hash));
    expect(Object.keys(t.transactions as object).sort()).toEqual(txs.map((x) => b64(x.hash)).sort());
    expect(t.actions).toEqual(list);
    expect(events(only, 'trace', norm).map((e) => e.data)).toEqual([t]);
    expect(events(only, 'trace', norm)[0]!.id).toBe(traces[0]!.id);

    // ids: the per-block transactions first, the completion last, at one position as kinds 1 and 2
    const ids = got.filter((e) => e.event === 'event').map((e) => e.id!);
    const [tracePos, traceKind] = traces[0]!.id!.split('.');
    expect(traceKind).toBe('1');
    expect(actions[0]!.id).toBe(`${tracePos}.2`);
    expect(ids.indexOf(actions[0]!.id!)).toBe(ids.indexOf(traces[0]!.id!) + 1);
    expect(ids.map((i) => Number(i.split('.')[0]))).toEqual(ids.map((i) => Number(i.split('.')[0])).sort((x, y) => x - y));
    expect(Math.floor(Number(tracePos) / 1_000_000)).toBe(Math.max(...txs.map((x) => x.mcSeqno)));
    const metrics = await (await svc.api('/metrics')).text();
    expect(Number(/tonwatch_stream_v2_traces_completed_total\{result="classified"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(metrics).toMatch(/tonwatch_stream_v2_trace_window_transactions [1-9]/);
    // with include_address_book: the same actions, then the book of the accounts they name
    const withBook = events(booked, 'actions', norm);
    expect(withBook).toHaveLength(1);
    expect(Object.keys(withBook[0]!.data)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'actions', 'address_book']);
    expect(withBook[0]!.data.actions).toEqual(list);
    expect(Object.keys(withBook[0]!.data.address_book as object).sort()).toEqual([...new Set(list.flatMap((x) => x.accounts as string[]))].sort());
    a.abort();
    b.abort();
    c.abort();
  });

  it('a jetton transfer: one jetton_transfer with owners, wallets, amount and master as the chain says; the trace holds every hop', async () => {
    const [alice, bob] = [wallet('alice'), wallet('bob')];
    const usdt = chain.directory!.jettons.find((j) => j.key === 'usdt')!;
    const walletOf = async (owner: typeof bob) => (await jettonWalletOf(chain, usdt.masterId, owner.address, 'owner')).toRawString();
    const before = chain.masterchainSeqno;
    const { root, norm } = await submit('/devnet/jetton/send', { from: 'alice', jetton: 'usdt', to: 'bob', amount: '4200000', comment: 'for tea' });
    const sender: V2Event[] = [];
    const receiver: V2Event[] = [];
    const a = await sse({ types: ['actions', 'trace'], addresses: [alice.id], trace_external_hash_norms: [norm] }, sender);
    const b = await sse({ types: ['actions'], addresses: [bob.id] }, receiver);
    await svc.settle();
    await until(() => events(sender, 'actions', norm).length > 0 && events(sender, 'trace', norm).length > 0 && events(receiver, 'actions', norm).length > 0, () => [sender, receiver]);
    await svc.produceBlock();
    await new Promise((r) => setTimeout(r, 300));

    const txs = await chainTrace(before, root);
    expect(new Set(txs.map((t) => t.mcSeqno)).size).toBeGreaterThanOrEqual(3);
    const [aliceWallet, bobWallet] = [await walletOf(alice), await walletOf(bob)];
    const transfer = txs.find((t) => t.account === aliceWallet && t.inMessage?.opcode === 0x0f8a7ea5)!;
    const amount = Cell.fromBase64(transfer.inMessage!.bodyBoc!).beginParse().skip(32 + 64).loadCoins();
    expect(amount).toBe(4_200_000n);

    const actions = events(sender, 'actions', norm);
    expect(actions).toHaveLength(1);
    const list = actions[0]!.data.actions as Array<Record<string, any>>;
    const jetton = list.filter((x) => x.type === 'jetton_transfer');
    expect(jetton).toHaveLength(1);
    expect(jetton[0]!.details).toMatchObject({
      asset: v3(usdt.masterId),
      sender: v3(alice.id),
      receiver: v3(bob.id),
      sender_jetton_wallet: v3(aliceWallet),
      receiver_jetton_wallet: v3(bobWallet),
      amount: amount.toString(),
      comment: 'for tea',
    });
    expect(jetton[0]!.transactions.length).toBeGreaterThanOrEqual(3);
    for (const h of jetton[0]!.transactions) expect(txs.map((t) => b64(t.hash))).toContain(h);
    // the receiver's owner subscribed alone gets the same action (it names bob)
    expect(events(receiver, 'actions', norm)).toHaveLength(1);
    expect((events(receiver, 'actions', norm)[0]!.data.actions as Array<Record<string, any>>).find((x) => x.type === 'jetton_transfer')).toEqual(jetton[0]);

    const traces = events(sender, 'trace', norm);
    expect(traces).toHaveLength(1);
    const t = traces[0]!.data;
    expect(Object.keys(t)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'trace', 'transactions', 'actions']);
    expect(flatten(t.trace as Node).sort()).toEqual(txs.map((x) => b64(x.hash)).sort());
    expect(Object.keys(t.transactions as object)).toHaveLength(txs.length);
    expect(actions[0]!.id).toBe(traces[0]!.id!.replace(/\.1$/, '.2'));
    a.abort();
    b.abort();
  });

  it('a bounced transfer: the trace completes with its bounce (three blocks), one actions notification', async () => {
    const alice = wallet('alice');
    const nobody = `0:${'5a'.repeat(32)}`; // no contract there: the bounceable message bounces back
    const before = chain.masterchainSeqno;
    const { root, norm } = await submit('/devnet/send', { from: 'alice', to: nobody, amount: '200000000', bounce: true });
    const got: V2Event[] = [];
    const a = await sse({ types: ['actions', 'trace'], addresses: [alice.id], trace_external_hash_norms: [norm] }, got);
    await svc.settle();
    await until(() => events(got, 'actions', norm).length > 0 && events(got, 'trace', norm).length > 0, () => got);
    await svc.produceBlock();
    await new Promise((r) => setTimeout(r, 300));
    const txs = await chainTrace(before, root);
    expect(txs.length).toBe(3); // alice's send, the bounce at the empty address, alice receiving it back
    expect(txs[2]!.inMessage!.bounced).toBe(true);
    const traces = events(got, 'trace', norm);
    expect(traces).toHaveLength(1);
    expect(flatten(traces[0]!.data.trace as Node).sort()).toEqual(txs.map((x) => b64(x.hash)).sort());
    expect(Math.floor(Number(traces[0]!.id!.split('.')[0]) / 1_000_000)).toBe(txs[2]!.mcSeqno);
    const actions = events(got, 'actions', norm);
    expect(actions).toHaveLength(1);
    const transfer = (actions[0]!.data.actions as Array<Record<string, any>>).find((x) => x.type === 'ton_transfer')!;
    expect(transfer.details).toMatchObject({ source: v3(alice.id), destination: v3(nobody) });
    a.abort();
  });

  it('a client that disconnects in the middle of a trace and resumes with its last id gets the completion exactly once', async () => {
    const alice = wallet('alice');
    const { norm } = await submit('/devnet/send', { from: 'alice', to: 'carol', amount: '300000000', comment: 'resume' });
    const sub = { types: ['transactions', 'actions'], addresses: [alice.id] };
    const steady: V2Event[] = [];
    const s = await sse(sub, steady);
    const first: V2Event[] = [];
    const c1 = await sse(sub, first);
    await svc.produceBlock(); // alice's transaction: the trace's first hop
    await until(() => events(first, 'transactions', norm).length > 0, () => first);
    c1.abort();
    const last = first.filter((e) => e.id).at(-1)!.id!;
    await svc.settle(); // the trace completes while the client is away
    await until(() => events(steady, 'actions', norm).length > 0, () => steady);

    for (let round = 0; round < 2; round++) {
      const resumed: V2Event[] = [];
      const c2 = await sse(sub, resumed, last);
      await until(() => events(resumed, 'actions', norm).length > 0, () => resumed);
      await svc.produceBlock();
      await new Promise((r) => setTimeout(r, 300));
      c2.abort();
      const mine = resumed.filter((e) => e.event === 'event' && e.data.trace_external_hash_norm === norm);
      // exactly the completion (alice's transaction was seen before the disconnect), as the steady client got it
      expect(mine.map((e) => e.data.type)).toEqual(['actions']);
      expect(mine.map((e) => [e.id, e.data])).toEqual(events(steady, 'actions', norm).map((e) => [e.id, e.data]));
    }
    expect(events(steady, 'actions', norm)).toHaveLength(1);
    s.abort();
  });
});
