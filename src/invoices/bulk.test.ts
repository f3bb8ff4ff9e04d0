// 1,000 invoices paid within a few blocks by six wallets (consecutive seqnos in the mempool, and
// up to 100 payments per external from v5 wallets) are all matched to the right invoice, none
// twice, with one webhook each.
import { internal } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountToAddress } from '../chain/address.js';
import type { DevnetChain } from '../chain/devnet/chain.js';
import { parseTransferLink } from '../chain/devnet/links.js';
import { sendFromWallet } from '../chain/devnet/sender.js';
import { startTestService, type TestService } from '../../test/support/service.js';
import { Receiver } from '../../test/support/webhooks.js';
import type { InvoiceJson } from './model.js';
import { createApp, createInvoice, devnetAndInvoices, json, pay, settleInvoices, walletAddress, withAmount } from '../../test/support/invoices.js';

const N = 1000;
const V4_PAYERS = ['alice', 'carol', 'mallory'];
const V5_PAYERS = ['bob', 'dave', 'exchange'];
const PAYERS = [...V4_PAYERS, ...V5_PAYERS];

describe('1,000 invoices paid within a few blocks', () => {
  let svc: TestService;
  let receiver: Receiver;

  beforeAll(async () => {
    svc = await startTestService({ components: devnetAndInvoices });
    receiver = await new Receiver().listen(0);
  });

  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  it('matches every payment to its invoice exactly once', { timeout: 240_000 }, async () => {
    const merchant = await walletAddress(svc, 'merchant');
    const { token } = await createApp(svc, { name: 'Bulk', recipient_address: merchant, webhooks: [receiver.url] });
    const invoices: InvoiceJson[] = [];
    for (let i = 0; i < N; i += 50) {
      const part = await Promise.all(
        Array.from({ length: Math.min(50, N - i) }, (_, j) => createInvoice(svc, token, { amount: String(10_000_000 + i + j), life_time: 3600, currency: 'TON' })),
      );
      invoices.push(...part);
    }
    // every 7th payer adds 1000 nanoton on top: an overpayment of exactly that
    const overpays = (i: number) => i % 7 === 0;
    const amountOf = (i: number) => BigInt(invoices[i]!.amount) + (overpays(i) ? 1000n : 0n);
    // a few pay one link per external through /devnet/pay (v4 wallets); the rest ride 100 payments
    // per external from v5 wallets, each still its own message and its own transaction at the merchant
    const byLink = (i: number) => i % 500 < 60;
    const payerOf = (i: number) => (byLink(i) ? V4_PAYERS : V5_PAYERS)[i % 3]!;
    const chain = svc.source as DevnetChain;
    const firstBlock = (await svc.produceBlock()) + 1;
    const started = Date.now();
    for (const round of [0, 1]) {
      const indexes = Array.from({ length: N / 2 }, (_, k) => round * (N / 2) + k);
      await Promise.all(
        V4_PAYERS.map(async (payer) => {
          for (const i of indexes.filter((i) => byLink(i) && payerOf(i) === payer)) await pay(svc, payer, withAmount(invoices[i]!.payment_link, amountOf(i)));
        }),
      );
      for (const payer of V5_PAYERS) {
        const wallet = chain.directory!.wallets.find((w) => w.name === payer)!;
        const mine = indexes.filter((i) => !byLink(i) && payerOf(i) === payer);
        for (let k = 0; k < mine.length; k += 100) {
          const messages = mine.slice(k, k + 100).map((i) => {
            const link = parseTransferLink(invoices[i]!.payment_link);
            return internal({ to: accountToAddress(link.destination), value: amountOf(i), bounce: false, body: link.payload! });
          });
          await sendFromWallet(chain, wallet, messages);
        }
      }
      await svc.produceBlock();
    }
    const paidIn = Date.now() - started;
    await settleInvoices(svc);
    console.log(`1,000 payments submitted and mined in ${paidIn} ms; matched ${Date.now() - started} ms after the first`);
    const lastBlock = (await json<{ head: { seqno: number } }>(await svc.api('/devnet/info'))).head.seqno;
    expect(lastBlock - firstBlock).toBeLessThanOrEqual(4);

    const addresses = Object.fromEntries(await Promise.all(PAYERS.map(async (p) => [p, await walletAddress(svc, p)] as const)));
    const seenTx = new Set<string>();
    for (let i = 0; i < N; i += 100) {
      const page = await Promise.all(invoices.slice(i, i + 100).map(async (inv) => json<InvoiceJson>(await svc.api(`/api/v1/services/invoices/${inv.id}`, { auth: token }), 200)));
      for (const [k, got] of page.entries()) {
        const idx = i + k;
        expect(got.status, got.id).toBe('paid');
        expect(got.paid_by_address).toBe(addresses[payerOf(idx)]);
        expect(got.overpayment).toBe(overpays(idx) ? '1000' : undefined);
        expect(got.payments).toHaveLength(1);
        expect(seenTx.has(got.payments![0]!.tx_hash)).toBe(false);
        seenTx.add(got.payments![0]!.tx_hash);
      }
    }
    await receiver.waitFor(N, 60_000);
    const hooked = receiver.bodies() as InvoiceJson[];
    expect(hooked).toHaveLength(N);
    expect(new Set(hooked.map((b) => b.id)).size).toBe(N);
    expect(hooked.every((b) => b.status === 'paid')).toBe(true);
    const metrics = await (await svc.api('/metrics')).text();
    expect(metrics).toMatch(new RegExp(`tonwatch_invoice_payments_matched_total\\{currency="TON",kind="payment"\\} ${N}\\b`));
    expect(metrics).toMatch(new RegExp(`tonwatch_invoices_paid_total\\{currency="TON"\\} ${N}\\b`));
  });
});
