// The invoicing HTTP API on a real service (devnet, SQLite): onboarding with the on-chain recipient
// check, tokens, webhook URLs, the `tonwatch apps` CLI, invoice validation, idempotency, list
// filters and sorting, stats, CSV export and the QR code.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type TestService } from '../../test/support/service.js';
import { run as appsCli } from '../cli/commands/apps.js';
import { Receiver } from '../../test/support/webhooks.js';
import type { InvoiceJson } from './model.js';
import { createApp, createInvoice, devnet, devnetAndInvoices, json, pay, settleInvoices, walletAddress } from '../../test/support/invoices.js';

const B = '/api/v1/services/invoices';

describe('invoicing API', () => {
  let svc: TestService;
  let receiver: Receiver;
  let merchant: string;
  let token: string;
  let appId: number;

  beforeAll(async () => {
    svc = await startTestService({ components: devnetAndInvoices });
    receiver = await new Receiver().listen(0);
    merchant = await walletAddress(svc, 'merchant');
    const created = await createApp(svc, { name: 'API shop', description: 'tests', recipient_address: merchant });
    token = created.token;
    appId = created.app.id;
  });

  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  async function error(res: Response, status: number): Promise<{ error: string; field?: string }> {
    return json(res, status);
  }

  describe('applications', () => {
    it('creates an application with the admin key: recipient in raw form, USDT wallet derived, token shown once', async () => {
      const friendly = (await json<Array<{ name: string; friendly: string }>>(await svc.api('/devnet/wallets'))).find((w) => w.name === 'exchange')!.friendly;
      const res = await svc.api(`${B}/app`, { method: 'POST', json: { name: 'Exchange', recipient_address: friendly, webhooks: [receiver.url] } });
      const body = await json<{ app: any; token: string }>(res, 201);
      expect(body.token).toMatch(/^tw_/);
      expect(body.app).toMatchObject({ name: 'Exchange', recipient_address: await walletAddress(svc, 'exchange') });
      // …and as the merchant typed it, the form wallets show (non-bounceable, not test-only on the devnet)
      expect(body.app.recipient_friendly).toBe(friendly);
      expect(friendly).toMatch(/^UQ/);
      expect(body.app.usdt_jetton_wallet).toMatch(/^0:[0-9a-f]{64}$/);
      expect(body.app.webhooks).toHaveLength(1);
      expect(body.app.webhooks[0].signing_secret).toMatch(/^whsec_/);
      const read = await json<{ app: any }>(await svc.api(`${B}/app/${body.app.id}`), 200);
      expect(read.app).toEqual(body.app);
      // the token works for invoices, and only its application's
      expect((await svc.api(B, { auth: body.token })).status).toBe(200);
    });

    it('refuses recipients that are not active wallets with an outgoing transaction, saying how to fix it', async () => {
      const nobody = '0:' + '77'.repeat(32);
      let e = await error(await svc.api(`${B}/app`, { method: 'POST', json: { name: 'Nobody', recipient_address: nobody } }), 400);
      expect(e.field).toBe('recipient_address');
      expect(e.error).toMatch(/nonexist.*active.*Activate it/s);
      const deployed = (await devnet(svc, '/devnet/scenarios/deploy', { from: 'alice' })) as { address: string };
      await svc.settle();
      e = await error(await svc.api(`${B}/app`, { method: 'POST', json: { name: 'Fresh wallet', recipient_address: deployed.address } }), 400);
      expect(e.field).toBe('recipient_address');
      expect(e.error).toMatch(/never sent a transaction/);
      e = await error(await svc.api(`${B}/app`, { method: 'POST', json: { name: 'Bad', recipient_address: 'EQnotanaddress' } }), 400);
      expect(e.field).toBe('recipient_address');
      e = await error(await svc.api(`${B}/app`, { method: 'POST', json: { name: 'ab', recipient_address: merchant } }), 400);
      expect(e.field).toBe('name');
      e = await error(await svc.api(`${B}/app`, { method: 'POST', json: { name: 'Loopback hooks', recipient_address: merchant, webhooks: ['ftp://x'] } }), 400);
      expect(e.field).toBe('webhooks[0]');
      expect(e.error).toBe('webhooks[0] must use http or https, not ftp');
    });

    it('keeps app management to the admin and the app itself', async () => {
      const other = await createApp(svc, { name: 'Other', recipient_address: merchant });
      expect((await svc.api(`${B}/app`, { method: 'POST', auth: token, json: { name: 'Mine', recipient_address: merchant } })).status).toBe(403);
      expect((await svc.api(`${B}/app/${other.app.id}`, { auth: token })).status).toBe(404);
      expect((await svc.api(`${B}/app/${appId}`, { auth: token })).status).toBe(200);
      expect((await svc.api(`${B}/app/${appId}`, { method: 'DELETE', auth: token })).status).toBe(403);
      const streamingKey = await svc.key('streaming');
      expect((await svc.api(`${B}/app/${appId}`, { auth: streamingKey })).status).toBe(403);
      expect((await svc.api(`${B}/app/${appId}`, { auth: null })).status).toBe(401);
      // the admin key is not an application token
      expect((await error(await svc.api(B), 403)).error).toMatch(/application's API token/);
    });

    it('updates, manages webhook URLs and deletes an application with its invoices and token', async () => {
      const made = await createApp(svc, { name: 'Temp', recipient_address: merchant });
      const id = made.app.id;
      const upd = await json<{ app: any }>(await svc.api(`${B}/app/${id}`, { method: 'PATCH', json: { name: 'Temp 2', description: 'x' } }), 200);
      expect(upd.app).toMatchObject({ name: 'Temp 2', description: 'x' });
      const hook = await json<{ webhook: any }>(await svc.api(`${B}/app/${id}/webhook`, { method: 'POST', auth: made.token, json: { url: receiver.url } }), 201);
      expect((await svc.api(`${B}/app/${id}/webhook`, { method: 'POST', json: { url: receiver.url } })).status).toBe(409);
      const edited = await json<{ webhook: any }>(await svc.api(`${B}/app/${id}/webhook/${hook.webhook.id}`, { method: 'PATCH', json: { url: receiver.url + '2' } }), 200);
      expect(edited.webhook.url).toBe(receiver.url + '2');
      expect((await json<{ webhooks: any[] }>(await svc.api(`${B}/app/${id}/webhook`), 200)).webhooks).toHaveLength(1);
      expect((await json<any>(await svc.api(`${B}/app/${id}/webhook/${hook.webhook.id}/logs`), 200)).logs).toEqual([]);
      expect((await svc.api(`${B}/app/${appId}/webhook/${hook.webhook.id}`, { method: 'DELETE' })).status).toBe(404);
      expect((await svc.api(`${B}/app/${id}/webhook/${hook.webhook.id}`, { method: 'DELETE' })).status).toBe(200);
      const inv = await createInvoice(svc, made.token, { amount: '1000000', life_time: 60, currency: 'TON' });
      expect((await svc.api(`${B}/app/${id}`, { method: 'DELETE' })).status).toBe(200);
      expect((await svc.api(`${B}/app/${id}`)).status).toBe(404);
      expect((await svc.api(`${B}/${inv.id}`, { auth: made.token })).status).toBe(401);
    });

    it('shows token metadata only, and a regenerated token replaces the old one at once', async () => {
      const made = await createApp(svc, { name: 'Tokens', recipient_address: merchant });
      const info = await json<{ token: any }>(await svc.api(`${B}/token?app_id=${made.app.id}`), 200);
      expect(info.token.prefix).toBe(made.token.slice(0, 7) + '…');
      expect(JSON.stringify(info)).not.toContain(made.token);
      expect((await svc.api(B, { auth: made.token })).status).toBe(200);
      const fresh = await json<{ token: string; token_info: any }>(await svc.api(`${B}/token`, { method: 'PATCH', auth: made.token }), 200);
      expect(fresh.token).not.toBe(made.token);
      expect((await svc.api(B, { auth: made.token })).status).toBe(401);
      expect((await svc.api(B, { auth: fresh.token })).status).toBe(200);
      expect((await svc.api(`${B}/token`)).status).toBe(400);
    });

    it('is mirrored by `tonwatch apps`', async () => {
      const out: string[] = [];
      const err: string[] = [];
      vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
      vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
      const cli = (...argv: string[]) => appsCli([...argv, '--url', svc.url, '--key', svc.adminKeySecret]);
      try {
        expect(await cli('create', '--name', 'From CLI', '--recipient', merchant, '--webhook', receiver.url)).toBe(0);
        const created = out.join('\n');
        const id = /application (\d+): From CLI/.exec(created)![1]!;
        expect(created).toMatch(/API token \(shown only now\): tw_/);
        expect(await cli('list')).toBe(0);
        expect(out.join('\n')).toContain(`application ${id}: From CLI`);
        expect(await cli('update', id, '--name', 'Renamed')).toBe(0);
        expect(await cli('show', id, '--json')).toBe(0);
        expect(JSON.parse(out.at(-1)!).app.name).toBe('Renamed');
        expect(await cli('token', id)).toBe(0);
        expect(out.at(-1)).toMatch(/^token key_[0-9a-f]+: tw_/);
        expect(await cli('token', id, '--regenerate')).toBe(0);
        expect(out.at(-1)).toMatch(/new API token .*tw_/);
        expect(await cli('webhook', 'add', id, receiver.url + '/second')).toBe(0);
        expect(out.at(-1)).toMatch(/signing secret whsec_/);
        expect(await cli('create', '--name', 'x', '--recipient', merchant)).toBe(1);
        expect(err.at(-1)).toMatch(/400 .*\(field: name\)/);
        expect(await cli('delete', id)).toBe(0);
        expect(await cli('show', id)).toBe(1);
        expect(await appsCli(['list', '--url', svc.url, '--key', 'tw_wrong'])).toBe(1);
        expect(err.at(-1)).toMatch(/401/);
      } finally {
        vi.restoreAllMocks();
      }
    });
  });

  describe('invoices', () => {
    it('names the field of every invalid input', async () => {
      const cases: Array<[Record<string, unknown>, string, RegExp]> = [
        [{ life_time: 60, currency: 'TON' }, 'amount', /required/],
        [{ amount: '-5', life_time: 60, currency: 'TON' }, 'amount', /string of digits/],
        [{ amount: '1.5', life_time: 60, currency: 'TON' }, 'amount', /string of digits/],
        // A JSON number: past 2^53 it has lost digits before any code sees it, so numbers are refused outright.
        [{ amount: 123456789012345677, life_time: 60, currency: 'TON' }, 'amount', /must be a string of digits, not a JSON number/],
        [{ amount: 2500000000, life_time: 60, currency: 'TON' }, 'amount', /must be a string of digits, not a JSON number/],
        [{ amount: '999999', life_time: 60, currency: 'TON' }, 'amount', /at least 1000000 \(0\.001 TON\)/],
        [{ amount: '999', life_time: 60, currency: 'USDT' }, 'amount', /at least 1000 \(0\.001 USDT\)/],
        [{ amount: '1000000000000000001', life_time: 60, currency: 'TON' }, 'amount', /at most 1000000000000000000 \(1000000000 TON\)/],
        [{ amount: '9'.repeat(40), life_time: 60, currency: 'TON' }, 'amount', /at most 1000000000000000000 \(1000000000 TON\)/],
        [{ amount: '1000000', life_time: 0, currency: 'TON' }, 'life_time', /1 to 7776000/],
        [{ amount: '1000000', life_time: 7_776_001, currency: 'TON' }, 'life_time', /1 to 7776000/],
        [{ amount: '1000000', life_time: 'soon', currency: 'TON' }, 'life_time', /integer/],
        [{ amount: '1000000', life_time: 60, currency: 'BTC' }, 'currency', /must be one of TON, USDT$/],
        [{ amount: '1000000', life_time: 60 }, 'currency', /required/],
        [{ amount: '1000000', life_time: 60, currency: 'TON', description: 'x'.repeat(256) }, 'description', /255/],
      ];
      for (const [body, field, message] of cases) {
        const e = await error(await svc.api(`${B}/invoice`, { method: 'POST', auth: token, json: body }), 400);
        expect(e.field, JSON.stringify(body)).toBe(field);
        expect(e.error, JSON.stringify(body)).toMatch(message);
      }
      expect((await error(await svc.api(`${B}/not-a-uuid`, { auth: token }), 400)).field).toBe('id');
      expect((await error(await svc.api(`${B}?field_order=colour`, { auth: token }), 400)).field).toBe('field_order');
      expect((await error(await svc.api(`${B}?filter_status=lost`, { auth: token }), 400)).field).toBe('filter_status');
      expect((await error(await svc.api(`${B}?start=10&end=5`, { auth: token }), 400)).field).toBe('end');
      const longKey = { 'idempotency-key': 'k'.repeat(300) };
      expect((await error(await svc.api(`${B}/invoice`, { method: 'POST', auth: token, json: { amount: '1000000', life_time: 60, currency: 'TON' }, headers: longKey }), 400)).field).toBe('Idempotency-Key');
      expect((await svc.api(`${B}/00000000-0000-4000-8000-000000000000`, { auth: token })).status).toBe(404);
    });

    it('returns the same invoice for the same Idempotency-Key and body, 409 for another body', async () => {
      const body = { amount: '5000000', life_time: 300, currency: 'TON', description: 'idem' };
      const headers = { 'idempotency-key': `order-${Date.now()}` };
      const first = await createInvoice(svc, token, body, headers);
      const res = await svc.api(`${B}/invoice`, { method: 'POST', auth: token, json: body, headers });
      const second = await json<InvoiceJson>(res, 201);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(second.id).toBe(first.id);
      expect(second.date_create).toBe(first.date_create);
      const other = await svc.api(`${B}/invoice`, { method: 'POST', auth: token, json: { ...body, amount: '6000000' }, headers });
      expect(other.status).toBe(409);
      // concurrent first uses of one key still make one invoice
      const key = { 'idempotency-key': `race-${Date.now()}` };
      const many = await Promise.all([1, 2, 3, 4, 5].map(() => createInvoice(svc, token, body, key)));
      expect(new Set(many.map((i) => i.id)).size).toBe(1);
    });

    it('lists with every filter and sort, counts, exports CSV and draws the QR code', async () => {
      const made = await createApp(svc, { name: 'Lists', recipient_address: merchant });
      const t = made.token;
      const a = await createInvoice(svc, t, { amount: '3000000', life_time: 100, currency: 'TON', description: 'bravo' });
      const b = await createInvoice(svc, t, { amount: '1000000', life_time: 300, currency: 'TON', description: 'alpha, "quoted"' });
      const c = await createInvoice(svc, t, { amount: '2000', life_time: 200, currency: 'USDT' });
      const d = await createInvoice(svc, t, { amount: '2000000', life_time: 400, currency: 'TON', description: '=cmd' });
      await svc.api(`${B}/${d.id}/cancel`, { method: 'PATCH', auth: t });
      await pay(svc, 'alice', a.payment_link.replace('amount=3000000', 'amount=4000000'));
      await settleInvoices(svc);
      const list = async (q: string) => json<{ items: InvoiceJson[]; count: number }>(await svc.api(`${B}?${q}`, { auth: t }), 200);
      const ids = (r: { items: InvoiceJson[] }) => r.items.map((i) => i.id);

      expect((await list('')).count).toBe(4);
      expect(ids(await list('field_order=amount&type_order=asc'))).toEqual([c.id, b.id, d.id, a.id]);
      expect(ids(await list('field_order=life_time&type_order=desc'))).toEqual([d.id, b.id, c.id, a.id]);
      expect(ids(await list('field_order=description&type_order=asc'))).toEqual([d.id, b.id, a.id, c.id]);
      expect(ids(await list('field_order=date_paid&type_order=desc'))[0]).toBe(a.id);
      expect(ids(await list('field_order=paid_by_address&type_order=asc'))[0]).toBe(a.id);
      expect(ids(await list('filter_status[]=paid&filter_status[]=cancelled&field_order=amount'))).toEqual([a.id, d.id]);
      expect(ids(await list('filter_status=pending,cancelled&field_order=amount&type_order=asc'))).toEqual([c.id, b.id, d.id]);
      expect(ids(await list('currency=USDT'))).toEqual([c.id]);
      expect(ids(await list('overpayment=true'))).toEqual([a.id]);
      expect((await list('overpayment=false')).count).toBe(3);
      expect(ids(await list(`search_id=${b.id.slice(9, 18).toUpperCase()}`))).toEqual([b.id]);
      expect((await list(`start=${a.date_create}&end=${d.date_create}`)).count).toBe(4);
      expect((await list(`start=${d.date_create + 1}`)).count).toBe(0);
      const page = await list('field_order=amount&type_order=asc&limit=2&offset=1');
      expect(page).toMatchObject({ count: 4 });
      expect(ids(page)).toEqual([b.id, d.id]);
      expect(page.items[0]!.payments).toBeUndefined();
      expect((await svc.api(`${B}?limit=1001`, { auth: t })).status).toBe(400);
      // the key may come in the query string too
      expect((await svc.api(`${B}?api_key=${encodeURIComponent(t)}`, { auth: null })).status).toBe(200);

      const stats = await json<{ stats: any }>(await svc.api(`${B}/stats?currency=TON`, { auth: t }), 200);
      expect(stats.stats).toMatchObject({ total: 3, success_total: '3000000', success_in_week: '3000000', invoices_in_progress: 1, total_amount_pending: '1000000', currency: 'TON' });
      expect(stats.stats.paid_per_day).toEqual([{ day: Math.floor(Date.now() / 86_400_000) * 86_400, amount: '3000000', count: 1 }]);
      expect((await json<{ stats: any }>(await svc.api(`${B}/stats?currency=USDT`, { auth: t }), 200)).stats).toMatchObject({ total: 1, invoices_in_progress: 1, total_amount_pending: '2000' });

      const csvRes = await svc.api(`${B}/export?currency=TON&field_order=amount&type_order=asc`, { auth: t });
      expect(csvRes.headers.get('content-type')).toMatch(/^text\/csv/);
      const lines = (await csvRes.text()).trim().split('\r\n');
      expect(lines[0]).toBe('id,status,currency,amount,amount_decimal,description,date_create,date_expire,date_change,date_paid,pay_to_address,paid_by_address,overpayment,payment_link');
      expect(lines).toHaveLength(4);
      expect(lines[1]).toContain(`${b.id},pending,TON,1000000,0.001,"alpha, ""quoted""",`);
      expect(lines[2]).toContain(`${d.id},cancelled,TON,2000000,0.002,'=cmd,`);
      expect(lines[3]).toContain(`${a.id},paid,TON,3000000,0.003,bravo,`);
      expect(lines[3]).toContain(',1000000,ton://transfer/');

      const png = await svc.api(`${B}/${a.id}/qr?size=256`, { auth: t });
      expect(png.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await png.arrayBuffer());
      expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      expect(bytes.readUInt32BE(16)).toBe(256);
      const svg = await svc.api(`${B}/${a.id}/qr?format=svg`, { auth: t });
      expect(svg.headers.get('content-type')).toBe('image/svg+xml');
      expect(await svg.text()).toMatch(/^<svg[^>]+viewBox/);
      expect((await svc.api(`${B}/${a.id}/qr?format=gif`, { auth: t })).status).toBe(400);
    });

    it('documents every invoicing route in the OpenAPI document', async () => {
      const doc = await json<{ paths: Record<string, unknown> }>(await svc.api('/docs/json'), 200);
      for (const p of ['/invoice', '', '/stats', '/export', '/{id}', '/{id}/cancel', '/{id}/qr', '/app', '/app/{id}', '/app/{id}/webhook', '/app/{id}/webhook/{webhook_id}', '/token']) {
        expect(doc.paths, p).toHaveProperty([`${B}${p}`]);
      }
    });
  });
});
