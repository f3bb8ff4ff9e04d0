// REST routes of the deposit indexer (TonAPI Embed's paths, scope `indexer`): history, one
// transaction's transfers, balance, tracking, audit, DNS resolution and status.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { parseAccountId } from '../chain/address.js';
import { parseHash } from '../chain/hash.js';
import type { DomainBook } from '../chain/domains.js';
import type { AccountId } from '../chain/model.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import { resolveWallet } from './chain.js';
import { TON } from './extract.js';
import type { Indexer } from './indexer.js';
import { parseBeforeLt } from './json.js';
import type { IndexerQueries } from './queries.js';
import * as S from './schemas.js';
import type { IndexerStatus } from './status.js';

export interface IndexerRoutesOptions {
  indexer: Indexer;
  queries: IndexerQueries;
  status: IndexerStatus;
  source: import('../chain/source.js').ChainSource;
  /** Root DNS resolver (config param 4 on real networks; published by the devnet). */
  /** The network profile's root DNS resolver; null while unknown (resolution answers 503). */
  dnsRoot: AccountId | null;
  /** Learns each name resolved here, for address books (absent: nothing learns). */
  domains?: Pick<DomainBook, 'learn'> | null;
}

function account(input: string, field: string): AccountId {
  try {
    return parseAccountId(input);
  } catch (err) {
    throw badRequest(`${field}: ${(err as Error).message}`, field);
  }
}

function hash(input: string): string {
  try {
    return parseHash(input);
  } catch (err) {
    throw badRequest(`hash: ${(err as Error).message}`, 'hash');
  }
}

const errors = { 400: S.ErrorBody, 401: S.ErrorBody, 403: S.ErrorBody, 404: S.ErrorBody, 503: S.ErrorBody };

export async function indexerRoutes(fastify: FastifyInstance, opts: IndexerRoutesOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { indexer, queries } = opts;
  const config = { auth: { scope: 'indexer' as const } };
  const tags = ['indexer'];
  const tonKey = (p: { address: string }) => ({ asset: TON, owner: account(p.address, 'address') });
  const jettonKey = (p: { jetton: string; address: string }) => {
    const asset = account(p.jetton, 'jetton');
    const owner = account(p.address, 'address');
    return { asset, owner };
  };

  app.get(
    '/account/:address/history',
    { config, schema: { tags, summary: 'TON transfer history of a tracked address, newest first', params: S.AddressParams, querystring: S.HistoryQuery, response: { 200: S.HistoryPage, ...errors } } },
    async (req) => {
      const key = tonKey(req.params);
      return queries.history(key, req.query.limit, parseBeforeLt(req.query.before_lt));
    },
  );
  app.get(
    '/jetton/:jetton/:address/history',
    { config, schema: { tags, summary: 'Jetton transfer history of a tracked owner, newest first', params: S.JettonParams, querystring: S.HistoryQuery, response: { 200: S.HistoryPage, ...errors } } },
    async (req) => {
      const key = jettonKey(req.params);
      return queries.history(key, req.query.limit, parseBeforeLt(req.query.before_lt));
    },
  );
  app.get(
    '/account/:address/history/:hash',
    { config, schema: { tags, summary: 'The TON transfers of one transaction', params: S.AddressHashParams, response: { 200: S.TransactionTransfers, ...errors } } },
    async (req) => {
      const key = tonKey(req.params);
      return queries.byHash(key, hash(req.params.hash));
    },
  );
  app.get(
    '/jetton/:jetton/:address/history/:hash',
    { config, schema: { tags, summary: 'The jetton transfers of one transaction', params: S.JettonHashParams, response: { 200: S.TransactionTransfers, ...errors } } },
    async (req) => {
      const key = jettonKey(req.params);
      return queries.byHash(key, hash(req.params.hash));
    },
  );
  app.get(
    '/account/:address',
    { config, schema: { tags, summary: 'TON balance of a tracked address at the chain head', params: S.AddressParams, response: { 200: S.Balance, ...errors } } },
    async (req) => queries.balance(tonKey(req.params)),
  );
  app.get(
    '/jetton/:jetton/:address',
    { config, schema: { tags, summary: 'Jetton balance of a tracked owner at the chain head', params: S.JettonParams, response: { 200: S.Balance, ...errors } } },
    async (req) => queries.balance(jettonKey(req.params)),
  );
  app.post(
    '/account/:address',
    {
      config,
      schema: { tags, summary: 'Track an address: backfill its TON history, then follow new blocks', params: S.AddressParams, response: { 201: S.Tracked, 409: S.ErrorBody, ...errors } },
    },
    async (req, reply) => {
      const key = tonKey(req.params);
      await indexer.track(key.asset, key.owner);
      reply.code(201);
      return { address: key.owner, backfill: await queries.backfill(await queries.entry(key)) };
    },
  );
  app.post(
    '/jetton/:jetton/:address',
    {
      config,
      schema: {
        tags,
        summary: "Track an owner's jetton deposits (and the owner's TON): the jetton wallet is derived on chain",
        params: S.JettonParams,
        response: { 201: S.Tracked, 409: S.ErrorBody, ...errors },
      },
    },
    async (req, reply) => {
      const key = jettonKey(req.params);
      const tracked = await indexer.track(key.asset, key.owner);
      reply.code(201);
      return {
        address: key.owner,
        jetton: key.asset,
        jetton_wallet: tracked.contract,
        owner_tracked: tracked.ownerTracked,
        backfill: await queries.backfill(await queries.entry(key)),
      };
    },
  );
  app.get(
    '/account/:address/audit',
    {
      config,
      schema: { tags, summary: 'Reconcile the TON history with the balance on chain (creation or a checkpoint → head)', params: S.AddressParams, querystring: S.AuditQuery, response: { 200: S.Audit, ...errors } },
    },
    async (req) => queries.audit(tonKey(req.params), req.query.since),
  );
  app.get(
    '/jetton/:jetton/:address/audit',
    {
      config,
      schema: { tags, summary: 'Reconcile the jetton history with the wallet balance on chain (creation or a checkpoint → head)', params: S.JettonParams, querystring: S.AuditQuery, response: { 200: S.Audit, ...errors } },
    },
    async (req) => queries.audit(jettonKey(req.params), req.query.since),
  );
  app.get(
    '/resolve/:domain',
    {
      config,
      schema: {
        tags,
        summary: 'Resolve a TON DNS name to its wallet (TEP-81, from the root resolver down)',
        params: S.DomainParams,
        response: { 200: S.Resolved, ...errors },
      },
    },
    async (req) => {
      if (!opts.dnsRoot) throw new ApiError(503, 'no root DNS resolver is known for this network: set TONWATCH_DNS_ROOT', { error_code: 'no_dns_root' });
      const resolved = await resolveWallet(opts.source, opts.dnsRoot, req.params.domain);
      if (!resolved) throw notFound(`${req.params.domain} has no wallet record`);
      opts.domains?.learn(resolved.domain, resolved.address);
      return resolved;
    },
  );
  app.get('/status', { config, schema: { tags, summary: 'Indexer health, lag and backfill progress', response: { 200: S.Status, ...errors } } }, async () => opts.status.read());
}
