// Invoice routes (compat.md §5), with the application's token in `Authorization: Bearer` or
// `?api_key=`: create, read, list, cancel, stats, CSV export and the payment link's QR code.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { badRequest } from '../../errors.js';
import { csvHeader, csvLine } from '../csv.js';
import { qrCode } from '../links.js';
import { invoiceJson } from '../model.js';
import type { InvoicesService } from '../service.js';
import { exportPages, getInvoice, invoiceStats, listInvoices } from '../store.js';
import { currencyInput, idempotencyKeyInput, listFilterInput, newInvoiceInput, parseInvoiceId } from '../validate.js';
import { callerApp } from './access.js';
import { auth, CreateInvoiceBody, errors, Invoice, InvoiceIdParams, ListQuery, PREFIX, Stats } from './schemas.js';

/** Most rows one CSV export holds. */
export const EXPORT_MAX_ROWS = 1_000_000;

function invoiceIdParam(raw: string): string {
  const id = parseInvoiceId(raw);
  if (!id) throw badRequest(`id must be an invoice id (a UUID), got ${JSON.stringify(raw.slice(0, 64))}`, 'id');
  return id;
}

export async function invoiceRoutes(parent: FastifyInstance, service: InvoicesService): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['invoices'];

  app.post(
    `${PREFIX}/invoice`,
    {
      config: auth,
      schema: {
        tags,
        summary: 'Create an invoice (201 + Location). Idempotency-Key: the same key and body return the same invoice; another body is a 409',
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        body: CreateInvoiceBody,
        response: { 201: Invoice, ...errors },
      },
    },
    async (request, reply) => {
      const owner = await callerApp(service, request);
      const input = newInvoiceInput(request.body);
      const key = idempotencyKeyInput(request.headers['idempotency-key']);
      const { invoice, replayed } = await service.createInvoice(owner, input, key);
      if (replayed) reply.header('idempotent-replayed', 'true');
      const view = replayed ? await service.invoiceView(owner.id, invoice.id) : invoiceJson(invoice, []);
      delete view.date_change;
      return reply.code(201).header('location', `${PREFIX}/${invoice.id}`).send(view);
    },
  );

  app.get(
    PREFIX,
    { config: auth, schema: { tags, summary: 'List invoices with filters and sorting', querystring: ListQuery, response: { 200: Type.Object({ items: Type.Array(Invoice), count: Type.Integer() }), ...errors } } },
    async (request) => {
      const owner = await callerApp(service, request);
      const { items, count } = await listInvoices(service.deps.store.db, owner.id, listFilterInput(request.query));
      return { items: items.map((i) => service.withDetected(invoiceJson(i))), count };
    },
  );

  app.get(
    `${PREFIX}/stats`,
    {
      config: auth,
      schema: { tags, summary: 'Statistics of one currency', querystring: Type.Object({ currency: Type.Optional(Type.String({ enum: ['TON', 'USDT'], default: 'TON' })), api_key: Type.Optional(Type.String()) }), response: { 200: Stats, ...errors } },
    },
    async (request) => {
      const owner = await callerApp(service, request);
      const currency = currencyInput(request.query.currency ?? 'TON');
      return { stats: await invoiceStats(service.deps.store.db, owner.id, currency, Math.floor(service.deps.now() / 1000)) };
    },
  );

  app.get(
    `${PREFIX}/export`,
    { config: auth, schema: { tags, summary: 'CSV of the invoices matching the list filters (limit and offset ignored)', querystring: ListQuery, produces: ['text/csv'] } },
    async (request, reply) => {
      const owner = await callerApp(service, request);
      const filter = listFilterInput(request.query);
      const pages = exportPages(service.deps.store.db, owner.id, filter, EXPORT_MAX_ROWS);
      const body = Readable.from(
        (async function* () {
          yield csvHeader();
          for await (const page of pages) yield page.map(csvLine).join('');
        })(),
      );
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="invoices-${owner.id}.csv"`)
        .send(body);
    },
  );

  app.get(
    `${PREFIX}/:id`,
    { config: auth, schema: { tags, summary: 'One invoice with its payments', params: InvoiceIdParams, response: { 200: Invoice, ...errors } } },
    async (request) => {
      const owner = await callerApp(service, request);
      return service.invoiceView(owner.id, invoiceIdParam(request.params.id));
    },
  );

  app.patch(
    `${PREFIX}/:id/cancel`,
    { config: auth, schema: { tags, summary: 'Cancel a pending invoice (409 otherwise)', params: InvoiceIdParams, response: { 200: Invoice, ...errors } } },
    async (request) => {
      const owner = await callerApp(service, request);
      return service.cancelInvoice(owner.id, invoiceIdParam(request.params.id));
    },
  );

  app.get(
    `${PREFIX}/:id/qr`,
    {
      config: auth,
      schema: {
        tags,
        summary: "QR code of the invoice's payment link, PNG (default) or SVG",
        params: InvoiceIdParams,
        querystring: Type.Object({
          format: Type.Optional(Type.String({ enum: ['png', 'svg'], default: 'png' })),
          size: Type.Optional(Type.Integer({ minimum: 64, maximum: 2048, default: 512 })),
          api_key: Type.Optional(Type.String()),
        }),
        produces: ['image/png', 'image/svg+xml'],
      },
    },
    async (request, reply) => {
      const owner = await callerApp(service, request);
      const id = invoiceIdParam(request.params.id);
      const inv = await getInvoice(service.deps.store.db, owner.id, id);
      if (!inv) return reply.code(404).send({ error: `no invoice ${id}` });
      const format = request.query.format === 'svg' ? 'svg' : 'png';
      const image = await qrCode(inv.paymentLink, format, request.query.size ?? 512);
      return reply
        .header('content-type', format === 'svg' ? 'image/svg+xml' : 'image/png')
        .header('cache-control', 'private, max-age=3600')
        .send(image);
    },
  );
}
