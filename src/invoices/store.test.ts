// Invoice store and matcher logic on SQLite and PostgreSQL: the matcher applies a batch of real
// devnet transactions (TON by payload and by comment, USDT, a bounce, a look-alike jetton, a late
// payment, partial payments) exactly once; expiry sweeps; list filters and sorts; stats that do
// not overflow; idempotency keys.
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import { addressToRaw } from '../chain/address.js';
import { NOBODY } from '../chain/devnet/scenarios.js';
import { openTestDevnet, transactionsAfter, type TestDevnet } from '../../test/support/devnet.js';
import { settle } from '../chain/devnet/genesis.js';
import type { EventBatch } from '../bus/events.js';
import { StoreEventLog } from '../bus/store-log.js';
import type { TransactionModel } from '../chain/model.js';
import type { Store } from '../store/db.js';
import { DeliveryEngine } from '../delivery/index.js';
import { insertApp, upsertRecipient } from './apps.js';
import { AppDirectory, ENDPOINT_PRODUCER } from './directory.js';
import { ExpiryTimer } from './expiry.js';
import { paymentLink } from './links.js';
import { InvoiceMatcher } from './matcher.js';
import { appOwnerRef, type Currency } from './model.js';
import { createInvoice, getInvoice, invoiceStats, listInvoices, paymentsOf } from './store.js';
import { deriveJettonWallet } from './usdt.js';
import { listFilterInput } from './validate.js';

const TON = 1_000_000_000n;
const USDT = 1_000_000n;

/** Real transactions recorded once on a devnet, and the invoice ids they name. */
interface Recorded {
  txs: TransactionModel[];
  merchant: string;
  nobody: string;
  usdtMaster: string;
  merchantUsdtWallet: string;
  ids: Record<'ton' | 'usdt' | 'comment' | 'bounce' | 'fake' | 'late' | 'partial' | 'excess', string>;
  payTime: number;
}

let devnet: TestDevnet;
let rec: Recorded;

beforeAll(async () => {
  devnet = await openTestDevnet();
  const { control, chain, directory } = devnet;
  const merchant = directory.wallets.find((w) => w.name === 'merchant')!.id;
  const usdtMaster = directory.jettons.find((j) => j.key === 'usdt')!.masterId;
  const ids = { ton: randomUUID(), usdt: randomUUID(), comment: randomUUID(), bounce: randomUUID(), fake: randomUUID(), late: randomUUID(), partial: randomUUID(), excess: randomUUID() };
  const link = (id: string, amount: bigint, currency: Currency) =>
    paymentLink({ invoiceId: id, payTo: merchant, amount, dateExpire: chain.now() + 600, currency, usdtMaster, testOnly: false });
  const before = chain.masterchainSeqno;
  await control.pay({ from: 'alice', link: link(ids.ton, 2n * TON, 'TON') });
  await control.pay({ from: 'bob', link: link(ids.usdt, 7n * USDT, 'USDT') });
  await control.send({ from: 'carol', to: 'merchant', amount: TON, comment: ids.comment });
  await control.send({ from: 'dave', to: addressToRaw(NOBODY), amount: TON, comment: ids.bounce, bounce: true });
  await control.jettonSend({ from: 'mallory', jetton: 'fake-usdt', to: 'merchant', amount: 7n * USDT, comment: ids.fake });
  await control.pay({ from: 'alice', link: link(ids.late, TON, 'TON') });
  await control.pay({ from: 'bob', link: link(ids.partial, TON, 'TON') });
  await control.pay({ from: 'exchange', link: link(ids.partial, TON, 'TON') });
  await control.pay({ from: 'carol', link: link(ids.excess, 3n * TON, 'TON') });
  await settle(chain);
  const txs = await transactionsAfter(chain, before);
  rec = {
    txs,
    merchant,
    nobody: addressToRaw(NOBODY),
    usdtMaster,
    merchantUsdtWallet: (await deriveJettonWallet(chain, usdtMaster, merchant))!,
    ids,
    payTime: Math.min(...txs.map((t) => t.utime)),
  };
});

afterAll(async () => {
  await devnet?.close();
});

function batchOf(txs: TransactionModel[]): EventBatch {
  const mcSeqno = txs[txs.length - 1]!.mcSeqno;
  const events = txs.map((tx, i) => ({ type: 'transaction' as const, tx, position: mcSeqno * 1_000_000 + i, mcSeqno }));
  return { kind: 'block', mcSeqno, firstPosition: events[0]!.position, lastPosition: events[events.length - 1]!.position, events };
}

describe.each(dialects)('invoices on %s', (dialect) => {
  let store: Store;
  let engine: DeliveryEngine;
  let directory: AppDirectory;
  let appId: number;
  let endpointId: number;

  async function setup(): Promise<void> {
    store = await openTestStore(dialect);
    engine = new DeliveryEngine({ store, allowLoopback: true });
    const app = await insertApp(store.db, { name: 'Store test', description: null, recipient: rec.merchant, now: 1 });
    appId = app.id;
    await upsertRecipient(store.db, { appId, account: rec.merchant, usdtMaster: rec.usdtMaster, usdtWallet: rec.merchantUsdtWallet }, 1);
    await upsertRecipient(store.db, { appId, account: rec.nobody, usdtMaster: null, usdtWallet: null }, 1);
    endpointId = (await engine.createEndpoint({ producer: ENDPOINT_PRODUCER, owner: appOwnerRef(appId), url: 'http://127.0.0.1:9/hook' })).id;
    directory = new AppDirectory(store.db, engine);
    await directory.refresh();
  }

  afterEach(async () => {
    if (store) await dropTestStore(store);
  });

  async function invoice(id: string, amount: bigint, currency: Currency, opts: { payTo?: string; now?: number; lifeTime?: number } = {}) {
    return createInvoice(store.db, {
      id,
      appId,
      payTo: opts.payTo ?? rec.merchant,
      input: { amount, lifeTime: opts.lifeTime ?? 600, currency, description: null },
      idempotencyKey: null,
      now: opts.now ?? rec.payTime - 10,
      link: () => 'ton://transfer/x',
    });
  }

  it('applies a block of real payments once: paid, partial, excess, late; bounces and fakes ignored', async () => {
    await setup();
    const { ids } = rec;
    await invoice(ids.ton, 2n * TON, 'TON');
    await invoice(ids.usdt, 7n * USDT, 'USDT');
    await invoice(ids.comment, TON, 'TON');
    await invoice(ids.bounce, TON, 'TON', { payTo: rec.nobody });
    await invoice(ids.fake, 7n * USDT, 'USDT');
    await invoice(ids.late, TON, 'TON', { now: rec.payTime - 100, lifeTime: 50 });
    await invoice(ids.partial, 3n * TON, 'TON');
    await invoice(ids.excess, 2n * TON, 'TON');
    const matcher = new InvoiceMatcher({ engine, directory, now: () => Date.now() });
    const batch = batchOf(rec.txs);
    const result = await store.db.transaction().execute((trx) => matcher.handle(batch, trx));
    expect(result.matched).toBe(7);
    const get = async (id: string) => (await getInvoice(store.db, appId, id))!;
    expect(await get(ids.ton)).toMatchObject({ status: 'paid', paidTotal: 2n * TON, overpayment: 0n });
    expect((await get(ids.usdt)).status).toBe('paid');
    expect((await get(ids.usdt)).paidBy).toBe(devnet.directory.wallets.find((w) => w.name === 'bob')!.id);
    expect((await get(ids.comment)).status).toBe('paid');
    expect(await get(ids.bounce)).toMatchObject({ status: 'pending', paidTotal: 0n });
    expect(await get(ids.fake)).toMatchObject({ status: 'pending', paidTotal: 0n });
    expect(await get(ids.late)).toMatchObject({ status: 'expired', overpayment: TON });
    expect(await get(ids.partial)).toMatchObject({ status: 'pending', paidTotal: 2n * TON });
    expect(await get(ids.excess)).toMatchObject({ status: 'paid', overpayment: TON });
    expect((await paymentsOf(store.db, [ids.partial])).get(ids.partial)).toHaveLength(2);
    // paid ×4 (ton, usdt, comment, excess), expired + overpaid (late)
    expect(result.events.map((e) => e.type).sort()).toEqual(['invoice.expired', 'invoice.overpaid', 'invoice.paid', 'invoice.paid', 'invoice.paid', 'invoice.paid']);
    expect(await engine.pendingCount(endpointId)).toBe(6);

    const again = await store.db.transaction().execute((trx) => matcher.handle(batch, trx));
    expect(again.matched).toBe(0);
    expect(await engine.pendingCount(endpointId)).toBe(6);
    expect((await get(ids.partial)).paidTotal).toBe(2n * TON);
  });

  it('expires due invoices in one sweep, keeping a partial sum as overpayment, and re-arms for the next', async () => {
    await setup();
    const now = Math.floor(Date.now() / 1000);
    const due = await invoice(randomUUID(), TON, 'TON', { now: now - 100, lifeTime: 10 });
    const later = await invoice(randomUUID(), TON, 'TON', { now, lifeTime: 3600 });
    await store.db.transaction().execute(async (trx) => {
      await trx.updateTable('invoices').set({ paid_total: TON / 2n }).where('id', '=', due.invoice.id).execute();
    });
    const expiry = new ExpiryTimer({ store, engine, directory, now: () => Date.now(), matcherCaughtUp: () => true });
    await expiry.start();
    await expiry.stop();
    expect(await getInvoice(store.db, appId, due.invoice.id)).toMatchObject({ status: 'expired', overpayment: TON / 2n });
    expect((await getInvoice(store.db, appId, later.invoice.id))!.status).toBe('pending');
    expect(await engine.pendingCount(endpointId)).toBe(1);
  });

  it("a deposed leader's sweep is refused and rolled back every second, and said once as a warning", async () => {
    await setup();
    const now = Math.floor(Date.now() / 1000);
    const due = await invoice(randomUUID(), TON, 'TON', { now: now - 100, lifeTime: 10 });
    // the fence of a log that learnt another process leads (cluster.test.ts covers the term check itself)
    const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
    await log.open();
    log.depose();
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const expiry = new ExpiryTimer({ store, engine, directory, logger, now: () => Date.now(), matcherCaughtUp: () => true, fence: (trx) => log.fence(trx) });
    await expiry.start();
    await new Promise((r) => setTimeout(r, 2300)); // the first sweep and two retries
    await expiry.stop();
    expect((await getInvoice(store.db, appId, due.invoice.id))!.status).toBe('pending');
    expect(await engine.pendingCount(endpointId)).toBe(0);
    expect(lines.map((line) => JSON.parse(line) as { level: number; msg: string })).toEqual([
      expect.objectContaining({ level: 40, msg: expect.stringMatching(/^invoice expiry sweep refused: another process leads now/) }),
    ]);
  });

  it('lists with filters and sorts, and sums amounts past the 64-bit range in stats', async () => {
    await setup();
    const now = Math.floor(Date.now() / 1000);
    const amounts = [5n, 1n, 3n].map((n) => n * 10n ** 18n);
    const made = [];
    for (const [i, amount] of amounts.entries()) made.push((await invoice(randomUUID(), amount, 'TON', { now: now - 30 + i, lifeTime: 100 + i })).invoice);
    made.push((await invoice(randomUUID(), 5000n, 'USDT', { now: now - 20 })).invoice);
    const list = (q: Record<string, unknown>) => listInvoices(store.db, appId, listFilterInput(q));
    expect((await list({ field_order: 'amount', type_order: 'asc', currency: 'TON' })).items.map((i) => i.amount)).toEqual([10n ** 18n, 3n * 10n ** 18n, 5n * 10n ** 18n]);
    expect((await list({ field_order: 'life_time', type_order: 'desc', currency: 'TON' })).items.map((i) => i.id)).toEqual([made[2]!.id, made[1]!.id, made[0]!.id]);
    expect((await list({ 'filter_status[]': ['pending'], limit: 2 })).count).toBe(4);
    expect((await list({ 'filter_status[]': ['pending'], limit: 2 })).items).toHaveLength(2);
    expect((await list({ start: now - 29, end: now - 28 })).items.map((i) => i.id)).toEqual([made[2]!.id, made[1]!.id]);
    expect((await list({ search_id: made[3]!.id.slice(0, 8) })).items.map((i) => i.id)).toEqual([made[3]!.id]);
    const stats = await invoiceStats(store.db, appId, 'TON', now);
    expect(stats).toMatchObject({ total: 3, invoices_in_progress: 3, total_amount_pending: (9n * 10n ** 18n).toString(), success_total: '0' });
  });

  it('returns the first invoice for a repeated idempotency key and refuses another body', async () => {
    await setup();
    const input = { amount: TON, lifeTime: 60, currency: 'TON' as const, description: 'once' };
    const opts = { appId, payTo: rec.merchant, input, idempotencyKey: 'k-1', now: 100, link: () => 'ton://transfer/x' };
    const first = await createInvoice(store.db, opts);
    const second = await createInvoice(store.db, opts);
    expect(second).toEqual({ invoice: first.invoice, replayed: true });
    await expect(createInvoice(store.db, { ...opts, input: { ...input, amount: 2n * TON } })).rejects.toMatchObject({ statusCode: 409 });
    // the same key in another application is another invoice
    const other = await insertApp(store.db, { name: 'Other', description: null, recipient: rec.merchant, now: 1 });
    expect((await createInvoice(store.db, { ...opts, appId: other.id })).replayed).toBe(false);
  });
});
