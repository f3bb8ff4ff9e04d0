// The webhooks component's module API: webhooks (delivery endpoints of producer `webhooks`, owned
// by the API key that created them) and their subscriptions. Every call checks ownership — another
// key's webhook is "not found". Store changes commit first, then the router's index follows.
import type { Kysely } from 'kysely';
import type { ChangeFeed } from '../bus/changes.js';
import type { ChainSource } from '../chain/source.js';
import type { Store } from '../store/db.js';
import { badRequest, notFound } from '../errors.js';
import type { DeliveryEngine } from '../delivery/engine.js';
import { EndpointRefusedError } from '../delivery/ssrf.js';
import type { DeliveryOutcome, Endpoint } from '../delivery/types.js';
import { collectReplay } from './replay.js';
import { accountKey, transactionBody } from './router.js';
import * as db from './store.js';
import type { SubscriptionIndex } from './subscription-index.js';

export const PRODUCER = 'webhooks';
/** The topic of announced subscription changes (key: the webhook id). */
export const CHANGES_TOPIC = 'webhooks';

export interface WebhookLimits {
  webhooksPerKey: number;
  accountsPerWebhook: number;
}

export interface WebhookView {
  endpoint: Endpoint;
  subscribedAccounts: number;
  subscribedOpcodes: number;
  feeds: Set<db.Feed>;
}

export class Webhooks {
  constructor(
    private readonly store: Store,
    readonly engine: DeliveryEngine,
    private readonly index: SubscriptionIndex,
    private readonly limits: WebhookLimits,
    private readonly source: ChainSource | null,
    /** Tells the other processes of a cluster (the leader's router) about subscription changes. */
    private readonly changes?: ChangeFeed,
  ) {
    engine.registerProducer(PRODUCER, { onOutcomes: (trx, outcomes) => this.onOutcomes(trx, outcomes) });
  }

  private now(): number {
    return this.engine.clock.now();
  }

  private async announce(id: number): Promise<void> {
    await this.changes?.announce(CHANGES_TOPIC, String(id));
  }

  /** Fills the router's index from the store (at start). */
  /** Loads every subscription into the index, or again one webhook's (another process changed it). */
  async loadIndex(webhookId?: number): Promise<void> {
    const all = await db.loadAllSubscriptions(this.store.db, webhookId);
    if (webhookId !== undefined) this.index.removeWebhook(webhookId);
    for (const a of all.accounts) this.index.addAccounts(a.webhookId, [a.account]);
    for (const o of all.opcodes) this.index.addOpcode(o.webhookId, o.opcode);
    for (const f of all.feeds) this.index.setFeed(f.webhookId, f.feed, true);
  }

  async create(owner: string, url: string): Promise<Endpoint> {
    const mine = await this.engine.listEndpoints({ producer: PRODUCER, owner });
    if (mine.length >= this.limits.webhooksPerKey) {
      throw badRequest(`this API key already has ${mine.length} webhooks, the most allowed (TONWATCH_WEBHOOK_MAX_PER_KEY)`, 'endpoint');
    }
    try {
      return await this.engine.createEndpoint({ producer: PRODUCER, owner, url });
    } catch (err) {
      if (err instanceof EndpointRefusedError) throw badRequest(err.reason.startsWith('endpoint ') ? err.reason : `endpoint: ${err.reason}`, 'endpoint');
      throw err;
    }
  }

  /** The webhook if `owner` owns it; otherwise 404. */
  async owned(owner: string, id: number): Promise<Endpoint> {
    const endpoint = await this.engine.getEndpoint(id);
    if (!endpoint || endpoint.producer !== PRODUCER || endpoint.owner !== owner) throw notFound(`webhook ${id} not found`);
    return endpoint;
  }

  async list(owner: string): Promise<WebhookView[]> {
    const endpoints = await this.engine.listEndpoints({ producer: PRODUCER, owner });
    const ids = endpoints.map((e) => e.id);
    const [accounts, opcodes, feeds] = await Promise.all([db.countAccounts(this.store.db, ids), db.countActiveOpcodes(this.store.db, ids), db.feedsOf(this.store.db, ids)]);
    return endpoints.map((endpoint) => ({
      endpoint,
      subscribedAccounts: accounts.get(endpoint.id) ?? 0,
      subscribedOpcodes: opcodes.get(endpoint.id) ?? 0,
      feeds: feeds.get(endpoint.id) ?? new Set(),
    }));
  }

  async remove(owner: string, id: number): Promise<void> {
    await this.owned(owner, id);
    this.index.removeWebhook(id);
    await this.store.db.transaction().execute(async (trx) => {
      await db.deleteSubscriptions(trx, id);
      await this.engine.deleteEndpoint(id, trx);
    });
    await this.announce(id);
  }

  async rotate(owner: string, id: number): Promise<Endpoint> {
    await this.owned(owner, id);
    return (await this.engine.rotateCredentials(id))!;
  }

  async backOnline(owner: string, id: number): Promise<void> {
    await this.owned(owner, id);
    await this.engine.backOnline(id);
  }

  async usage(owner: string) {
    const ids = (await this.engine.listEndpoints({ producer: PRODUCER, owner })).map((e) => e.id);
    const counts = await db.countAccounts(this.store.db, ids);
    const usage = await this.engine.usage(PRODUCER, owner);
    return { ...usage, accountSubscriptions: [...counts.values()].reduce((a, b) => a + b, 0) };
  }

  async subscribeAccounts(owner: string, id: number, accounts: string[]): Promise<void> {
    await this.owned(owner, id);
    const unique = [...new Set(accounts)];
    const current = (await db.countAccounts(this.store.db, [id])).get(id) ?? 0;
    if (current + unique.length > this.limits.accountsPerWebhook) {
      // Exact only when none is subscribed yet; good enough to keep the bound.
      const fresh = await this.countNew(id, unique);
      if (current + fresh > this.limits.accountsPerWebhook) {
        throw badRequest(`a webhook may follow at most ${this.limits.accountsPerWebhook} accounts (it has ${current}, this adds ${fresh})`, 'accounts');
      }
    }
    await db.addAccounts(this.store.db, id, unique, this.now());
    this.index.addAccounts(id, unique);
    await this.announce(id);
  }

  private async countNew(id: number, accounts: string[]): Promise<number> {
    let n = 0;
    for (const a of accounts) if (!(await db.isSubscribed(this.store.db, id, a))) n++;
    return n;
  }

  async unsubscribeAccounts(owner: string, id: number, accounts: string[]): Promise<void> {
    await this.owned(owner, id);
    await db.removeAccounts(this.store.db, id, accounts);
    this.index.removeAccounts(id, accounts);
    await this.announce(id);
  }

  async accountSubscriptions(owner: string, id: number, offset: number, limit: number) {
    await this.owned(owner, id);
    return db.listAccounts(this.store.db, id, offset, limit);
  }

  async subscribeOpcode(owner: string, id: number, opcode: number): Promise<void> {
    await this.owned(owner, id);
    await db.addOpcode(this.store.db, id, opcode, this.now());
    this.index.addOpcode(id, opcode);
    await this.announce(id);
  }

  async unsubscribeOpcode(owner: string, id: number, opcode: number): Promise<void> {
    await this.owned(owner, id);
    await db.removeOpcode(this.store.db, id, opcode);
    this.index.removeOpcode(id, opcode);
    await this.announce(id);
  }

  async opcodeSubscriptions(owner: string, id: number, offset: number, limit: number) {
    await this.owned(owner, id);
    return db.listOpcodes(this.store.db, id, offset, limit);
  }

  async setFeed(owner: string, id: number, feed: db.Feed, on: boolean): Promise<void> {
    await this.owned(owner, id);
    await db.setFeed(this.store.db, id, feed, on, this.now());
    this.index.setFeed(id, feed, on);
    await this.announce(id);
  }

  async logs(owner: string, id: number, offset: number, limit: number) {
    await this.owned(owner, id);
    return this.engine.failureLog(id, offset, limit);
  }

  /** Sends a past delivery again; false when the webhook has no delivery with that webhook-id. */
  async redeliver(owner: string, id: number, messageId: string): Promise<boolean> {
    await this.owned(owner, id);
    return this.engine.redeliver(id, messageId);
  }

  /** Queues the account's transactions with lt ≥ fromLt again, oldest first, in the account's order. */
  async replay(owner: string, id: number, account: string, fromLt: bigint, limit: number) {
    await this.owned(owner, id);
    if (!this.source) throw badRequest('replay needs a chain source, and this service has none');
    if (!(await db.isSubscribed(this.store.db, id, account))) throw badRequest(`webhook ${id} does not follow ${account}: subscribe to it first`, 'account_id');
    const txs = await collectReplay(this.source, account, fromLt, limit);
    await this.store.db.transaction().execute((trx) =>
      this.engine.enqueue(
        trx,
        txs.map((tx) => ({
          endpointId: id,
          orderingKey: accountKey('account_tx', account),
          eventType: 'account_tx',
          body: transactionBody(tx),
          meta: { account, lt: tx.lt.toString() },
          eventTimeMs: tx.utime * 1000,
        })),
      ),
    );
    this.engine.notify();
    return txs;
  }

  /** Keeps each account subscription's cursor and stuck event in step with its deliveries. */
  private async onOutcomes(trx: Kysely<any>, outcomes: DeliveryOutcome[]): Promise<void> {
    // Outcomes of one account come in order: a failure after a delivery in the same batch leaves
    // the account stuck, a delivery after a failure clears it.
    const delivered = new Map<string, { webhookId: number; account: string; lt: bigint }>();
    const failing = new Map<string, { webhookId: number; account: string; lt: bigint; at: number; attempts: number }>();
    for (const o of outcomes) {
      if (o.delivery.eventType !== 'account_tx' || !o.delivery.meta) continue;
      const meta = JSON.parse(o.delivery.meta) as { account: string; lt: string };
      const lt = BigInt(meta.lt);
      const key = `${o.endpoint.id}\n${meta.account}`;
      if (o.result === 'delivered') {
        const prev = delivered.get(key);
        if (!prev || prev.lt < lt) delivered.set(key, { webhookId: o.endpoint.id, account: meta.account, lt });
        failing.delete(key);
      } else {
        failing.set(key, { webhookId: o.endpoint.id, account: meta.account, lt, at: o.at, attempts: o.attempts });
      }
    }
    await db.markDelivered(trx, [...delivered.values()]);
    for (const f of failing.values()) await db.markFailing(trx, f.webhookId, f.account, f.lt, f.at, f.attempts);
  }
}
