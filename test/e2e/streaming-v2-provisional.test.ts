// Streaming v2's provisional levels through the real service on the devnet (confirmation lag 300 ms): a
// TON transfer and a jetton transfer watched with min_finality "pending". The pending `transactions`
// notification holds the emulated trace (`emulated: true`), whose accounts, amounts, bodies and opcodes are
// those the chain then finalizes (compared without hashes and LTs, which emulation need not share); confirmed `trace`
// has the documented fields with the tree of the confirmed root and the emulated rest; a confirmed
// `actions` notification classifies the transfer (`jetton_transfer` with the sender's wallet proven by
// get-methods); each trace's levels only go up.
import { Cell, internal, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jettonWalletOf } from '../../src/chain/devnet/inputs.js';
import type { DevnetChain } from '../../src/chain/devnet/chain.js';
import { signedTransfer, walletSeqno } from '../../src/chain/devnet/wallets.js';
import { normalizedHashOfMessage } from '../../src/chain/message-boc.js';
import type { TestService } from '../support/service.js';
import { openSse, type V2Event } from '../support/v2-client.js';
import { b64, startV2Devnet, until, v3 } from '../support/v2-devnet.js';

const RANK: Record<string, number> = { pending: 0, confirmed: 1, finalized: 2 };

type Tx = Record<string, any>;
/** What emulation and execution agree on: who ran, what came in (source, value, opcode, body), what went out. */
const shape = (t: Tx, withValues: boolean) => ({
  account: t.account,
  aborted: t.description.aborted,
  in: t.in_msg && { source: t.in_msg.source, opcode: t.in_msg.opcode, body: t.in_msg.message_content?.body ?? null, ...(withValues ? { value: t.in_msg.value } : {}) },
  out: t.out_msgs.map((m: Tx) => ({ destination: m.destination, opcode: m.opcode, body: m.message_content?.body ?? null, ...(withValues ? { value: m.value } : {}) })),
});
const byShape = (a: { account: string; in: { opcode: string | null } | null }, b: typeof a) => `${a.account}${a.in?.opcode}`.localeCompare(`${b.account}${b.in?.opcode}`);

describe('streaming v2 provisional contents on the devnet', () => {
  let svc: TestService;
  let key: string;
  let chain: DevnetChain;
  const wallet = (name: string) => chain.directory!.wallets.find((w) => w.name === name)!;

  beforeAll(async () => void ({ svc, key, chain } = await startV2Devnet()), 120_000);
  afterAll(() => svc?.close());

  /** Every notification of one trace, and its finality sequence checked to only go up. */
  const ofTrace = (list: V2Event[], norm: string) => {
    const mine = list.filter((e) => e.event === 'event' && e.data.trace_external_hash_norm === norm).map((e) => e.data as Record<string, any>);
    return mine;
  };
  const neverBackwards = (notes: Array<Record<string, any>>) => {
    const ranks = notes.map((n) => RANK[n.finality]!);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  };

  it('a TON transfer: pending transactions are the emulated trace, confirmed trace and actions classify it, then finalized', async () => {
    const carol = wallet('carol');
    const dave = wallet('dave');
    const seqno = walletSeqno(carol.version, chain.pendingAccount(carol.id).data);
    const cell = await signedTransfer(carol, { seqno, now: chain.now(), messages: [internal({ to: dave.address, value: toNano('0.5'), bounce: false, body: 'provisional' })] });
    const norm = b64(normalizedHashOfMessage(cell)!);
    const seen: V2Event[] = [];
    const sub = { types: ['transactions', 'trace', 'actions'], addresses: [carol.id, dave.id], trace_external_hash_norms: [norm], min_finality: 'pending', include_address_book: true };
    const sse = await openSse(`${svc.url}/streaming/v2/sse?api_key=${key}`, sub, { onEvent: (e) => seen.push(e) });
    await chain.sendExternalMessage(cell.toBoc());
    await svc.produceBlock();
    await svc.produceBlock(); // dave's transaction, the trace's second hop
    const of = (type: string, finality: string) => ofTrace(seen, norm).filter((n) => n.type === type && n.finality === finality);
    const finalizedTxs = () => of('transactions', 'finalized').flatMap((n) => n.transactions as Tx[]);
    await until(() => finalizedTxs().length >= 2 && of('actions', 'confirmed').length > 0, () => seen);

    // pending transactions: the docs' fields in order, the emulated transactions LT descending
    const [pending] = of('transactions', 'pending');
    expect(Object.keys(pending!)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'transactions', 'address_book']);
    const emulated = pending!.transactions as Tx[];
    expect(emulated.map((t) => t.account).sort()).toEqual([v3(carol.id), v3(dave.id)].sort());
    expect(emulated.every((t) => t.emulated === true && t.finality === 'pending')).toBe(true);
    expect(emulated.map((t) => BigInt(t.lt))).toEqual(emulated.map((t) => BigInt(t.lt)).sort((a, b) => (b > a ? 1 : -1)));
    // ... and what the chain then finalized: the same accounts, values, opcodes and bodies (not hashes or LTs)
    const final = finalizedTxs();
    expect(final.every((t) => t.emulated === false)).toBe(true);
    expect(emulated.map((t) => shape(t, true)).sort(byShape)).toEqual(final.map((t) => shape(t, true)).sort(byShape));
    expect(emulated.find((t) => t.account === v3(dave.id))!.in_msg.value).toBe(toNano('0.5').toString());

    // confirmed transactions: carol's from the non-final block, dave's still emulated (its own finality)
    const [confirmedTxs] = of('transactions', 'confirmed');
    expect(Object.keys(confirmedTxs!)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'transactions', 'address_book']);
    expect((confirmedTxs!.transactions as Tx[]).map((t) => [t.account, t.emulated, t.finality]).sort()).toEqual(
      [[v3(carol.id), false, 'confirmed'], [v3(dave.id), true, 'pending']].sort(),
    );

    // confirmed trace: the docs' fields, the tree from the confirmed root to dave's emulated transaction
    const [trace] = of('trace', 'confirmed');
    expect(Object.keys(trace!)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'trace', 'transactions', 'actions', 'address_book']);
    const root = final.find((t) => t.account === v3(carol.id) && t.in_msg.source === null)!;
    expect(trace!.trace.tx_hash).toBe(root.hash);
    expect(trace!.trace.children).toHaveLength(1);
    const child = trace!.transactions[trace!.trace.children[0].tx_hash];
    expect(child).toMatchObject({ account: v3(dave.id), emulated: true, finality: 'pending' });
    expect(trace!.transactions[root.hash]).toMatchObject({ emulated: false, finality: 'confirmed', lt: root.lt });
    // the child consumes the real message in flight: the one the confirmed root sent
    expect(child.in_msg.hash).toBe(root.out_msgs[0].hash);
    expect(Object.keys(trace!.transactions).sort()).toEqual([root.hash, trace!.trace.children[0].tx_hash].sort());

    // confirmed actions: the transfer classified
    const [actions] = of('actions', 'confirmed');
    expect(Object.keys(actions!)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'actions', 'address_book']);
    const transfer = (actions!.actions as Tx[]).find((a) => a.type === 'ton_transfer')!;
    expect(transfer).toMatchObject({ finality: 'confirmed', details: { source: v3(carol.id), destination: v3(dave.id), value: toNano('0.5').toString(), comment: 'provisional' } });
    expect(of('actions', 'pending').flatMap((n) => n.actions as Tx[]).map((a) => a.type)).toContain('ton_transfer');

    // per type, pending → confirmed → finalized, never backwards
    for (const type of ['transactions', 'trace']) {
      const levels = ofTrace(seen, norm).filter((n) => n.type === type);
      neverBackwards(levels);
      expect([...new Set(levels.map((n) => n.finality))]).toEqual(['pending', 'confirmed', 'finalized']);
    }
    neverBackwards(ofTrace(seen, norm));
    sse.abort();
    await svc.settle();
  });

  it('a jetton transfer: the pending emulation matches the finalized trace; confirmed actions classify jetton_transfer', async () => {
    const alice = wallet('alice');
    const bob = wallet('bob');
    const usdt = chain.directory!.jettons.find((j) => j.key === 'usdt')!;
    const walletOf = async (owner: typeof bob) => (await jettonWalletOf(chain, usdt.masterId, owner.address, 'owner')).toRawString();
    const [aliceWallet, bobWallet] = [await walletOf(alice), await walletOf(bob)];
    const seen: V2Event[] = [];
    const traced: V2Event[] = [];
    const sub = { types: ['transactions', 'actions'], addresses: [alice.id, bob.id, aliceWallet, bobWallet], min_finality: 'pending' };
    const sse = await openSse(`${svc.url}/streaming/v2/sse?api_key=${key}`, sub, { onEvent: (e) => seen.push(e) });
    const res = await svc.api('/devnet/jetton/send', { method: 'POST', json: { from: 'alice', jetton: 'usdt', to: 'bob', amount: '1000000', comment: 'jetton provisional' } });
    expect(res.status).toBe(200);
    const { message_hash: hash } = (await res.json()) as { message_hash: string };
    const boc = (await chain.getPendingMessages()).find((m) => m.hash === hash)!.boc;
    const norm = b64(normalizedHashOfMessage(Cell.fromBase64(boc))!);
    // the trace's own subscriber, before its first block
    const traceSse = await openSse(`${svc.url}/streaming/v2/sse?api_key=${key}`, { types: ['trace'], trace_external_hash_norms: [norm], min_finality: 'pending', include_address_book: true }, { onEvent: (e) => traced.push(e) });
    for (let i = 0; i < 5; i++) await svc.produceBlock();
    const of = (type: string, finality: string) => ofTrace(seen, norm).filter((n) => n.type === type && n.finality === finality);
    const finalizedTxs = () => of('transactions', 'finalized').flatMap((n) => n.transactions as Tx[]);
    await until(() => finalizedTxs().length >= 5 && of('actions', 'confirmed').length > 0 && ofTrace(traced, norm).some((n) => n.finality === 'finalized'), () => seen);

    const [pending] = of('transactions', 'pending');
    expect(Object.keys(pending!)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'transactions']);
    const emulated = pending!.transactions as Tx[];
    expect(emulated.every((t) => t.emulated === true)).toBe(true);
    // wallet → its jetton wallet → bob's jetton wallet → bob (notify) and alice (excess): as finalized, values
    // included (nothing else ran between admission and the blocks)
    const final = finalizedTxs();
    expect(emulated).toHaveLength(final.length);
    expect(new Set(emulated.map((t) => t.account))).toEqual(new Set([alice.id, aliceWallet, bobWallet, bob.id].map(v3)));
    expect(emulated.map((t) => shape(t, true)).sort(byShape)).toEqual(final.map((t) => shape(t, true)).sort(byShape));
    const first = (list: Tx[]) => list.find((t) => t.account === v3(alice.id) && t.in_msg.source === null)!;

    // confirmed actions: jetton_transfer, its sender's wallet proven (asset = the master)
    const confirmedActions = of('actions', 'confirmed').flatMap((n) => n.actions as Tx[]);
    const jetton = confirmedActions.find((a) => a.type === 'jetton_transfer');
    expect(jetton).toMatchObject({
      finality: 'confirmed',
      details: { asset: v3(usdt.masterId), sender: v3(alice.id), receiver: v3(bob.id), sender_jetton_wallet: v3(aliceWallet), receiver_jetton_wallet: v3(bobWallet), amount: '1000000', comment: 'jetton provisional' },
    });
    // the finalized classification (other module) agrees with the provisional one where it is made
    const finalActions = of('actions', 'finalized').flatMap((n) => n.actions as Tx[]);
    const finalJetton = finalActions.find((a) => a.type === 'jetton_transfer');
    if (finalJetton) expect(finalJetton.details).toEqual(jetton!.details);

    // the trace subscriber: confirmed with the documented fields, the tree holding every transaction
    const [confirmedTrace] = ofTrace(traced, norm).filter((n) => n.finality === 'confirmed');
    expect(Object.keys(confirmedTrace!)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'trace', 'transactions', 'actions', 'address_book']);
    // the book names every account of the transactions and of the actions (the jetton's master too)
    const named = new Set<string>([...(confirmedTrace!.actions as Tx[]).flatMap((a) => a.accounts as string[]), ...Object.values(confirmedTrace!.transactions as Record<string, Tx>).flatMap((t) => [t.account, t.in_msg?.source, ...t.out_msgs.map((m: Tx) => m.destination)])].filter((x): x is string => !!x));
    expect(Object.keys(confirmedTrace!.address_book).sort()).toEqual([...named].sort());
    expect(named.has(v3(usdt.masterId))).toBe(true);
    const nodes = (n: Tx): number => 1 + (n.children as Tx[]).reduce((s, c) => s + nodes(c), 0);
    expect(nodes(confirmedTrace!.trace)).toBe(final.length);
    expect(Object.keys(confirmedTrace!.transactions)).toHaveLength(final.length);
    expect(Object.values(confirmedTrace!.transactions as Record<string, Tx>).filter((t) => !t.emulated).map((t) => t.hash)).toEqual([first(final).hash]);
    neverBackwards(ofTrace(traced, norm));
    for (const type of ['transactions', 'actions']) neverBackwards(ofTrace(seen, norm).filter((n) => n.type === type));
    sse.abort();
    traceSse.abort();
    await svc.settle();
  });
});
