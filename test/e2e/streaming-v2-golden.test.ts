// Golden tests from TON Center's documented Streaming API v2 examples (docs.ton.org; source: the
// ton-org/docs repository, ecosystem/api/toncenter/streaming/sse.mdx, wss.mdx and reference.mdx). Each
// documented request example is sent, as documented, to the real service over real SSE (a fetch POST)
// and a real WebSocket (`ws`), and answered with the documented reply. Each documented notification
// example's shape — field names, JSON types, field order, finality values — is reproduced from real
// devnet traces; the docs' placeholders ("E7...NORMALIZED_EXTERNAL_MSG_HASH", "0:18AA...RAW_ADDRESS")
// are checked for their format, and the values against the chain, read independently.
import { Cell, internal, loadTransaction, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFriendly } from '../../src/chain/address.js';
import type { DevnetChain } from '../../src/chain/devnet/chain.js';
import { setDomainRecordsBody, walletRecord } from '../../src/chain/devnet/dns-resolver.js';
import { jettonWalletOf } from '../../src/chain/devnet/inputs.js';
import { signedTransfer, walletSeqno, type DevnetWallet } from '../../src/chain/devnet/wallets.js';
import { jettonWalletBalance } from '../../src/chain/jetton.js';
import { normalizedHashOfMessage } from '../../src/chain/message-boc.js';
import type { TestService } from '../support/service.js';
import { openSse, openWs, type V2Event, type WsSession } from '../support/v2-client.js';
import { b64, startV2Devnet, until, v3 } from '../support/v2-devnet.js';

// ---- The documented examples, as data (values are the docs' own, placeholders included) ----

const NORM = 'E7...NORMALIZED_EXTERNAL_MSG_HASH';

/** sse.mdx, "Examples": "Lowest-latency stream of pending → confirmed → finalized finality levels". */
const SSE_LOWEST_LATENCY = {
  types: ['transactions', 'actions'],
  addresses: ['EQC...ACCOUNT_ADDRESS', '0:abc...RAW_ADDRESS'],
  min_finality: 'pending',
  include_address_book: true,
  include_metadata: false,
  action_types: ['jetton_transfer', 'ton_transfer'],
};
/** sse.mdx, "Examples": "Subscribing to a specific trace". */
const SSE_TRACE = { types: ['trace'], trace_external_hash_norms: [NORM], min_finality: 'pending', include_address_book: true, include_metadata: true };
/** sse.mdx: "Successful SSE subscriptions receive the following message from the server". */
const SSE_SUBSCRIBED = { status: 'subscribed' };

/** wss.mdx, `subscribe`: "Request example" and "Successful response". */
const WS_SUBSCRIBE = {
  operation: 'subscribe',
  types: ['transactions', 'actions', 'account_state_change', 'jettons_change', 'trace'],
  addresses: ['<ACCOUNT_ADDRESS>'],
  trace_external_hash_norms: [NORM],
  min_finality: 'pending',
  include_address_book: true,
  include_metadata: false,
  action_types: ['jetton_transfer', 'ton_transfer'],
  id: '1',
};
const WS_SUBSCRIBED = { id: '1', status: 'subscribed' };
/** wss.mdx, `unsubscribe`: "Request example" and "Successful response". */
const WS_UNSUBSCRIBE = { operation: 'unsubscribe', addresses: ['<ACCOUNT_ADDRESS>'], trace_external_hash_norms: [NORM], id: '2' };
const WS_UNSUBSCRIBED = { id: '2', status: 'unsubscribed' };
/** wss.mdx, `ping`: "Request example" and "Successful response". */
const WS_PING = { operation: 'ping', id: 'ping-42' };
const WS_PONG = { id: 'ping-42', status: 'pong' };

// reference.mdx, "Notification schemas": each "Notification example" (its `/* … */` comments are empty containers here).
const TRANSACTIONS_EXAMPLE = { type: 'transactions', finality: 'pending', trace_external_hash_norm: NORM, transactions: [], address_book: {}, metadata: {} };
const ACTIONS_EXAMPLE = { type: 'actions', finality: 'confirmed', trace_external_hash_norm: NORM, actions: [], address_book: {}, metadata: {} };
const TRACE_EXAMPLE = { type: 'trace', finality: 'confirmed', trace_external_hash_norm: NORM, trace: {}, transactions: {}, actions: [], address_book: {}, metadata: {} };
const ACCOUNT_STATE_EXAMPLE = {
  type: 'account_state_change',
  finality: 'finalized',
  account: '0:18AA...RAW_ADDRESS',
  state: { hash: 'P0Gc...BASE64_HASH', balance: '42...NANOTON_BALANCE', account_status: 'active', data_hash: '7qNe...BASE64_HASH', code_hash: 'ow8E...BASE64_HASH' },
};
const JETTONS_EXAMPLE = {
  type: 'jettons_change',
  finality: 'finalized',
  jetton: { address: '0:88DA...RAW_ADDRESS', balance: '42...JETTON_BALANCE', owner: '0:18AA...RAW_ADDRESS', jetton: '0:B113...RAW_ADDRESS', last_transaction_lt: '61664...LT_UNIX_TIME' },
  address_book: {},
  metadata: {},
};
const INVALIDATED_EXAMPLE = { type: 'trace_invalidated', trace_external_hash_norm: NORM };

/** reference.mdx, "Delivery semantics": the finality values each type carries. */
const TRACE_FINALITIES = ['pending', 'confirmed', 'finalized'];
const STATE_FINALITIES = ['confirmed', 'finalized'];

// ---- Checking a notification against an example ----

const base64Hash = (v: unknown) => typeof v === 'string' && /^[A-Za-z0-9+/]{43}=$/.test(v) && Buffer.from(v, 'base64').length === 32;
const decimal = (v: unknown) => typeof v === 'string' && /^\d+$/.test(v);
/** What a placeholder's suffix stands for (the docs write `<start>...<KIND>`). */
const PLACEHOLDERS: Record<string, (v: unknown) => boolean> = {
  NORMALIZED_EXTERNAL_MSG_HASH: base64Hash,
  BASE64_HASH: base64Hash,
  RAW_ADDRESS: (v) => typeof v === 'string' && /^-?\d+:[0-9A-F]{64}$/.test(v),
  NANOTON_BALANCE: decimal,
  JETTON_BALANCE: decimal,
  LT_UNIX_TIME: decimal,
};
/**
 * Fields the examples leave out that the API v3 schema they name has (ton-index-go models: AccountState
 * carries extra_currencies and frozen_hash, JettonWallet code_hash and data_hash; TON Center sends them).
 */
const SCHEMA_EXTRAS: Record<string, Record<string, (v: unknown) => boolean>> = {
  'state.': { extra_currencies: (v) => v === null || (typeof v === 'object' && !Array.isArray(v)), frozen_hash: (v) => v === null || base64Hash(v) },
  'jetton.': { code_hash: (v) => v === null || base64Hash(v), data_hash: (v) => v === null || base64Hash(v) },
};

/**
 * Mismatches of `actual` against `example`: the same field names in the same order (less the optional
 * fields in `absent`, plus the schema's extras), each of the example's JSON type, placeholders in their
 * format, `finality` among `finalities`, other strings equal.
 */
function shapeErrors(actual: unknown, example: Record<string, unknown>, finalities: string[], absent: string[] = [], path = ''): string[] {
  if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return [`${path || '$'}: not an object`];
  const got = actual as Record<string, unknown>;
  const extras = SCHEMA_EXTRAS[path] ?? {};
  const errors: string[] = [];
  const want = Object.keys(example).filter((k) => !absent.includes(path + k));
  const keys = Object.keys(got).filter((k) => !(k in extras && !(k in example)));
  if (JSON.stringify(keys) !== JSON.stringify(want)) errors.push(`${path || '$'}: fields ${JSON.stringify(keys)}, documented ${JSON.stringify(want)}`);
  for (const [k, check] of Object.entries(extras)) if (k in got && !check(got[k])) errors.push(`${path}${k}: ${JSON.stringify(got[k])}`);
  for (const k of want) {
    const ex = example[k];
    const v = got[k];
    if (typeof ex === 'string') {
      const kind = /\.\.\.([A-Z0-9_]+)$/.exec(ex)?.[1];
      if (kind) {
        if (!PLACEHOLDERS[kind]!(v)) errors.push(`${path}${k}: ${JSON.stringify(v)} is not a ${kind}`);
      } else if (k === 'finality') {
        if (!finalities.includes(v as string)) errors.push(`${path}${k}: ${JSON.stringify(v)} not in ${finalities}`);
      } else if (v !== ex) errors.push(`${path}${k}: ${JSON.stringify(v)}, documented ${JSON.stringify(ex)}`);
    } else if (Array.isArray(ex)) {
      if (!Array.isArray(v)) errors.push(`${path}${k}: not an array`);
    } else if (ex && typeof ex === 'object') {
      if (Object.keys(ex).length === 0) {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) errors.push(`${path}${k}: not an object`);
      } else errors.push(...shapeErrors(v, ex as Record<string, unknown>, finalities, absent, `${path}${k}.`));
    }
  }
  return errors;
}

// ---- The devnet ----

/** A documented example with its placeholders replaced by real values. */
const fill = <T>(example: T, values: Record<string, unknown>): T => JSON.parse(JSON.stringify(example), (_k, v) => (typeof v === 'string' && v in values ? values[v] : v)) as T;

type Json = Record<string, any>;
type Book = Record<string, { user_friendly: string; domain: string | null; interfaces: string[] | null }>;

describe('streaming v2: the documented examples, reproduced on the devnet', () => {
  let svc: TestService;
  let key: string;
  let chain: DevnetChain;
  const wallet = (name: string) => chain.directory!.wallets.find((w) => w.name === name)!;

  /** A TON transfer's external message, built here so its trace's norm is known before it is sent. */
  async function transfer(from: DevnetWallet, to: DevnetWallet, comment: string, seqno?: number) {
    const ext = await signedTransfer(from, {
      seqno: seqno ?? walletSeqno(from.version, chain.pendingAccount(from.id).data),
      now: chain.now(),
      messages: [internal({ to: to.address, value: toNano('0.3'), bounce: false, body: comment })],
    });
    return { ext, norm: b64(normalizedHashOfMessage(ext)!) };
  }
  /** The state hash a transaction left (its HASH_UPDATE), read from the chain. */
  async function newStateHashes(account: string): Promise<string[]> {
    const s = await chain.getAccountState(account);
    const txs = await chain.getTransactions(account, s.lastTxLt, s.lastTxHash, 10);
    return txs.map((t) => loadTransaction(Cell.fromBase64(t.boc).beginParse()).stateUpdate.newHash.toString('base64'));
  }

  beforeAll(async () => void ({ svc, key, chain } = await startV2Devnet()), 120_000);
  afterAll(() => svc?.close());

  it('SSE and WebSocket request examples are accepted as documented; transactions, trace and account_state_change reproduce their examples', async () => {
    const [alice, bob] = [wallet('alice'), wallet('bob')];
    const t = await transfer(alice, bob, 'golden');

    // sse.mdx: the two request examples, with their placeholders filled in the forms they show
    const lowest: V2Event[] = [];
    const traced: V2Event[] = [];
    const values = { 'EQC...ACCOUNT_ADDRESS': toFriendly(bob.id, { bounceable: true }), '0:abc...RAW_ADDRESS': alice.id, [NORM]: t.norm, '<ACCOUNT_ADDRESS>': alice.address.toString() };
    const headers = { 'x-api-key': key };
    const a = await openSse(`${svc.url}/api/streaming/v2/sse`, fill(SSE_LOWEST_LATENCY, values), { onEvent: (e) => lowest.push(e) }, { headers });
    const b = await openSse(`${svc.url}/api/streaming/v2/sse`, fill(SSE_TRACE, values), { onEvent: (e) => traced.push(e) }, { headers });
    expect([a.status, b.status]).toEqual([200, 200]);
    // wss.mdx: the subscribe example, answered as documented
    const ws: WsSession = await openWs(`${svc.url.replace('http', 'ws')}/api/streaming/v2/ws`, { 'x-api-key': key });
    expect(await ws.request(fill(WS_SUBSCRIBE, values))).toEqual(WS_SUBSCRIBED);
    await until(() => lowest.length > 0 && traced.length > 0, () => [lowest, traced]);
    expect(lowest[0]!.data).toEqual(SSE_SUBSCRIBED);
    expect(traced[0]!.data).toEqual(SSE_SUBSCRIBED);

    await chain.sendExternalMessage(t.ext.toBoc());
    await svc.produceBlock();
    await svc.produceBlock(); // bob's transaction, the trace's second hop
    await svc.settle();
    const of = (list: Array<Json>, type: string) => list.filter((n) => n.type === type && n.trace_external_hash_norm === t.norm);
    const sse = (list: V2Event[]) => list.filter((e) => e.event === 'event').map((e) => e.data as Json);
    const finalizedAccounts = (list: Json[]) => of(list, 'transactions').filter((n) => n.finality === 'finalized').flatMap((n) => n.transactions.map((x: Json) => x.account));
    await until(
      () =>
        finalizedAccounts(sse(lowest)).includes(v3(bob.id)) &&
        finalizedAccounts(ws.notifications).includes(v3(alice.id)) &&
        of(sse(traced), 'trace').some((n) => n.finality === 'finalized') &&
        of(sse(lowest), 'actions').some((n) => n.finality === 'finalized') &&
        ws.notifications.some((n) => n.type === 'account_state_change' && n.finality === 'finalized'),
      () => [sse(lowest).map((n) => [n.type, n.finality]), sse(traced).map((n) => [n.type, n.finality]), ws.notifications.map((n) => [n.type, n.finality])],
    );

    // "transactions": the example's fields in its order (include_metadata false: no metadata), pending → confirmed → finalized
    const txNotes = of(sse(lowest), 'transactions');
    for (const n of [...txNotes, ...of(ws.notifications, 'transactions')]) expect(shapeErrors(n, TRANSACTIONS_EXAMPLE, TRACE_FINALITIES, ['metadata'])).toEqual([]);
    const levels = txNotes.map((n) => n.finality);
    expect(levels.slice(0, 2)).toEqual(['pending', 'confirmed']);
    expect(levels.slice(2).length).toBeGreaterThan(0);
    expect(levels.slice(2).every((l) => l === 'finalized')).toBe(true);
    // the finalized transactions are the chain's, LT descending within each notification
    const chainTx = async (w: DevnetWallet) => {
      const s = await chain.getAccountState(w.id);
      return { hash: b64(s.lastTxHash), lt: s.lastTxLt.toString() };
    };
    const finalizedTxs = txNotes.filter((n) => n.finality === 'finalized').flatMap((n) => n.transactions as Json[]);
    expect(finalizedTxs.map((x) => ({ hash: x.hash, lt: x.lt })).sort((x, y) => (x.hash < y.hash ? -1 : 1))).toEqual([await chainTx(alice), await chainTx(bob)].sort((x, y) => (x.hash < y.hash ? -1 : 1)));
    for (const n of txNotes) {
      const lts = (n.transactions as Json[]).map((x) => BigInt(x.lt));
      expect(lts).toEqual([...lts].sort((x, y) => (x > y ? -1 : x < y ? 1 : 0)));
    }
    // the address book: raw → user-friendly, and the `.ton` name where one resolves to the account (devnet: alice.ton, bob.ton)
    const book = txNotes.find((n) => n.finality === 'finalized')!.address_book as Book;
    expect(book[v3(alice.id)]).toEqual({ user_friendly: toFriendly(alice.id, { bounceable: false }), domain: 'alice.ton', interfaces: null });
    expect(book[v3(bob.id)]).toEqual({ user_friendly: toFriendly(bob.id, { bounceable: false }), domain: 'bob.ton', interfaces: null });

    // "trace": the trace example's fields (its optional `actions` only where the trace's actions are classified)
    const traces = of(sse(traced), 'trace');
    expect(traces.map((n) => n.finality).slice(0, 2)).toEqual(['pending', 'confirmed']);
    for (const n of traces) {
      // the example's optional `actions` is there at every level: a TON transfer is always classified
      expect(shapeErrors(n, TRACE_EXAMPLE, TRACE_FINALITIES)).toEqual([]);
      expect((n.actions as Json[]).map((x) => x.type)).toContain('ton_transfer');
      // every node of the tree names a transaction of the map
      const nodes: Json[] = [];
      const walk = (node: Json) => (nodes.push(node), (node.children as Json[]).forEach(walk));
      walk(n.trace);
      // the whole trace at every level (pending: emulated; finalized: both hops), each node in the map
      expect(nodes).toHaveLength(2);
      for (const node of nodes) expect(n.transactions).toHaveProperty([node.tx_hash]);
    }
    const finalTraces = traces.filter((n) => n.finality === 'finalized');
    const inFinalTraces = finalTraces.flatMap((n) => Object.values(n.transactions as Record<string, Json>).map((x) => x.hash));
    expect(inFinalTraces.sort()).toEqual([(await chainTx(alice)).hash, (await chainTx(bob)).hash].sort());
    for (const n of finalTraces) expect(Object.values(n.metadata)).toEqual([]); // two wallets: no token metadata

    // "account_state_change": alice's state after her transaction, as the chain has it, confirmed (from the
    // non-final block's state update) then finalized
    const states = ws.notifications.filter((n) => n.type === 'account_state_change');
    for (const n of states) expect(shapeErrors(n, ACCOUNT_STATE_EXAMPLE, STATE_FINALITIES)).toEqual([]);
    const aliceState = await chain.getAccountState(alice.id);
    const ofAlice = (states as Json[]).filter((n) => n.account === v3(alice.id));
    expect(ofAlice.map((n) => n.finality)).toEqual(['confirmed', 'finalized']);
    for (const n of ofAlice) {
      expect(n.state).toMatchObject({ hash: (await newStateHashes(alice.id))[0], balance: aliceState.balance.toString(), account_status: 'active' });
      expect(n.state.code_hash).toBe(Cell.fromBase64(aliceState.code!).hash().toString('base64'));
      expect(n.state.data_hash).toBe(Cell.fromBase64(aliceState.data!).hash().toString('base64'));
    }

    // "actions" (the lowest-latency example asks for ton_transfer): the example's shape at pending, confirmed and
    // finalized, one ton_transfer alice → bob of the value the chain moved
    const actionNotes = [...of(sse(lowest), 'actions'), ...of(ws.notifications, 'actions')];
    for (const n of actionNotes) {
      expect(shapeErrors(n, ACTIONS_EXAMPLE, TRACE_FINALITIES, ['metadata'])).toEqual([]);
      for (const action of n.actions as Json[]) expect(['ton_transfer', 'jetton_transfer']).toContain(action.type);
    }
    expect(of(sse(lowest), 'actions').map((n) => n.finality)).toEqual(['pending', 'confirmed', 'finalized']);
    const sent = finalizedTxs.find((x) => x.account === v3(alice.id))!.out_msgs[0] as Json;
    for (const n of of(sse(lowest), 'actions')) {
      expect(n.actions.map((x: Json) => x.type)).toEqual(['ton_transfer']);
      expect(n.actions[0].details).toMatchObject({ source: v3(alice.id), destination: v3(bob.id), value: sent.value });
    }

    // wss.mdx: ping and unsubscribe, answered as documented; unsubscribed, alice's next transfer stays away
    expect(await ws.request(WS_PING)).toEqual(WS_PONG);
    expect(await ws.request(fill(WS_UNSUBSCRIBE, values))).toEqual(WS_UNSUBSCRIBED);
    const seen = ws.notifications.length;
    const next = await transfer(alice, bob, 'after unsubscribe');
    await chain.sendExternalMessage(next.ext.toBoc());
    await svc.settle();
    await until(() => of(sse(lowest), 'transactions').length > 0 && sse(lowest).some((n) => n.trace_external_hash_norm === next.norm && n.finality === 'finalized'), () => lowest);
    expect(ws.notifications.slice(seen)).toEqual([]);
    a.abort();
    b.abort();
    ws.close();
  });

  it('a jetton transfer reproduces the jettons_change example: wallet as get_wallet_data says, address book and metadata after it', async () => {
    const [alice, bob] = [wallet('alice'), wallet('bob')];
    const usdt = chain.directory!.jettons.find((j) => j.key === 'usdt')!;
    const walletOf = async (owner: DevnetWallet) => (await jettonWalletOf(chain, usdt.masterId, owner.address, 'owner')).toRawString();
    const [aliceWallet, bobWallet] = [await walletOf(alice), await walletOf(bob)];
    const events: V2Event[] = [];
    // the owner's TON wallet, in the friendly form (reference.mdx: "the subscribed address is its own address or its owner's")
    const sub = { types: ['jettons_change'], addresses: [alice.address.toString()], min_finality: 'confirmed', include_address_book: true, include_metadata: true };
    const s = await openSse(`${svc.url}/streaming/v2/sse?api_key=${key}`, sub, { onEvent: (e) => events.push(e) });
    expect(s.status).toBe(200);
    const res = await svc.api('/devnet/jetton/send', { method: 'POST', json: { from: 'alice', jetton: 'usdt', to: 'bob', amount: '1000000' } });
    expect(res.status).toBe(200);
    await svc.settle();
    const jettons = () => events.filter((e) => e.event === 'event' && e.data.type === 'jettons_change').map((e) => e.data as Json);
    await until(() => jettons().some((n) => n.finality === 'finalized'), () => events);

    for (const n of jettons()) expect(shapeErrors(n, JETTONS_EXAMPLE, STATE_FINALITIES)).toEqual([]);
    // alice's wallet only (bob's is neither subscribed nor owned by a subscribed address)
    const final = jettons().filter((n) => n.finality === 'finalized');
    expect(final.map((n) => n.jetton.address)).toEqual([v3(aliceWallet)]);
    const j = final[0]!.jetton;
    const state = await chain.getAccountState(aliceWallet);
    expect(j).toMatchObject({
      balance: (await jettonWalletBalance(chain, aliceWallet)).toString(),
      owner: v3(alice.id),
      jetton: v3(usdt.masterId),
      last_transaction_lt: state.lastTxLt.toString(),
      code_hash: Cell.fromBase64(state.code!).hash().toString('base64'),
      data_hash: Cell.fromBase64(state.data!).hash().toString('base64'),
    });
    expect(j.address).not.toBe(v3(bobWallet));
    // address book: the wallet, its owner and the master (TON Center's addrBookAddresses); metadata: the master's token
    const book = final[0]!.address_book as Book;
    expect(Object.keys(book).sort()).toEqual([v3(aliceWallet), v3(alice.id), v3(usdt.masterId)].sort());
    expect(book[v3(alice.id)]).toEqual({ user_friendly: toFriendly(alice.id, { bounceable: false }), domain: 'alice.ton', interfaces: null });
    expect(book[v3(usdt.masterId)]).toEqual({ user_friendly: toFriendly(usdt.masterId, { bounceable: true }), domain: null, interfaces: null });
    expect(book[v3(aliceWallet)]!.domain).toBeNull();
    const metadata = final[0]!.metadata as Record<string, Json>;
    expect(Object.keys(metadata)).toEqual([v3(usdt.masterId)]);
    expect(metadata[v3(usdt.masterId)]!.token_info[0]).toMatchObject({ valid: true, type: 'jetton_masters', symbol: 'USDT', name: usdt.name });
    // enriched, the notifications kept the connection's order: ids rise
    const ids = events.filter((e) => e.event === 'event').map((e) => Number(e.id!.split('~')[0]));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    s.abort();
  });

  it("a name resolved through the indexer's DNS route shows in the address book of the account it resolves to", async () => {
    const [mallory, dave] = [wallet('mallory'), wallet('dave')];
    // the zone's owner registers vault.ton → mallory (a name the network profile does not list)
    const faucet = chain.directory!.faucet;
    const register = await signedTransfer(faucet, {
      seqno: walletSeqno(faucet.version, chain.pendingAccount(faucet.id).data),
      now: chain.now(),
      messages: [internal({ to: chain.directory!.dns.zone, value: toNano('0.1'), bounce: true, body: setDomainRecordsBody('vault', { wallet: walletRecord(mallory.address) }) })],
    });
    await chain.sendExternalMessage(register.toBoc());
    await svc.settle();
    const resolved = await svc.api('/resolve/vault.ton');
    expect(await resolved.json()).toMatchObject({ domain: 'vault.ton', address: mallory.id });

    const events: V2Event[] = [];
    const s = await openSse(`${svc.url}/streaming/v2/sse?api_key=${key}`, { types: ['transactions'], addresses: [mallory.id], include_address_book: true }, { onEvent: (e) => events.push(e) });
    const t = await transfer(mallory, dave, 'named');
    await chain.sendExternalMessage(t.ext.toBoc());
    await svc.settle();
    const mine = () => events.filter((e) => e.event === 'event' && e.data.trace_external_hash_norm === t.norm).map((e) => e.data as Json);
    await until(() => mine().length > 0, () => events);
    const book = mine()[0]!.address_book as Book;
    expect(book[v3(mallory.id)]).toEqual({ user_friendly: toFriendly(mallory.id, { bounceable: false }), domain: 'vault.ton', interfaces: null });
    expect(book[v3(dave.id)]!.domain).toBeNull();
    s.abort();
  });

  it('two externals with one seqno reproduce the trace_invalidated example (WebSocket)', async () => {
    const [carol, dave] = [wallet('carol'), wallet('dave')];
    const ws = await openWs(`${svc.url.replace('http', 'ws')}/streaming/v2/ws?api_key=${key}`);
    expect(await ws.request({ operation: 'subscribe', types: ['transactions', 'trace_invalidated'], addresses: [carol.address.toString()], min_finality: 'pending', include_address_book: true, id: 'inv' })).toEqual({ id: 'inv', status: 'subscribed' });
    const seqno = walletSeqno(carol.version, chain.pendingAccount(carol.id).data);
    const first = await transfer(carol, dave, 'first', seqno);
    const second = await transfer(carol, dave, 'second', seqno);
    await chain.sendExternalMessage(first.ext.toBoc());
    await chain.sendExternalMessage(second.ext.toBoc());
    await svc.produceBlock();
    const of = (norm: string) => ws.notifications.filter((n) => n.trace_external_hash_norm === norm);
    await until(() => of(second.norm).some((n) => n.type === 'trace_invalidated') && of(first.norm).some((n) => n.finality === 'finalized'), () => ws.notifications);
    const invalidated = of(second.norm).filter((n) => n.type === 'trace_invalidated');
    expect(invalidated).toHaveLength(1);
    expect(shapeErrors(invalidated[0], INVALIDATED_EXAMPLE, [])).toEqual([]);
    expect(invalidated[0]).toEqual({ type: 'trace_invalidated', trace_external_hash_norm: second.norm });
    // the finality sequence: the loser pending then invalidated; the winner never invalidated after finalized
    expect(of(second.norm).map((n) => (n.type === 'trace_invalidated' ? 'invalidated' : n.finality))).toEqual(['pending', 'invalidated']);
    expect(of(first.norm).map((n) => n.finality)).toEqual(['pending', 'confirmed', 'finalized']);
    for (const n of of(first.norm)) expect(shapeErrors(n, TRANSACTIONS_EXAMPLE, TRACE_FINALITIES, ['metadata'])).toEqual([]);
    // carol has no `.ton` name: her address book row says so
    const book = of(first.norm).find((n) => n.finality === 'finalized')!.address_book as Book;
    expect(book[v3(carol.id)]).toEqual({ user_friendly: toFriendly(carol.id, { bounceable: false }), domain: null, interfaces: null });
    ws.close();
    await svc.settle();
  });
});
