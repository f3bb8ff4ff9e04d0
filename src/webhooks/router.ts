// Routing: a durable consumer of the event log matches every transaction and mempool message
// against the subscriptions and writes delivery intents into the outbox in the same transaction
// as its cursor — a crash neither loses nor repeats a match. What matches:
//  - account_tx: every transaction of a subscribed account;
//  - new_contract: an account's transaction that makes it active from nonexist/uninit;
//  - msg_opcode: every message on the chain whose body starts with the opcode, once per message:
//    inbound messages at the transaction that receives them, external-out messages at the one
//    that emits them (an internal message is both sent and received; we count it once);
//  - mempool: every pending external message.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { PendingMessage, TransactionModel } from '../chain/model.js';
import type { EventBatch } from '../bus/events.js';
import type { DeliveryEngine, EnqueueReceipt } from '../delivery/engine.js';
import type { DeliveryIntent } from '../delivery/types.js';
import { disableOpcode } from './store.js';
import type { SubscriptionIndex } from './subscription-index.js';

export type WebhookEventType = 'account_tx' | 'new_contract' | 'msg_opcode' | 'mempool';

export interface RouterOptions {
  index: SubscriptionIndex;
  engine: DeliveryEngine;
  /** Matches one opcode subscription may produce per minute before it is disabled. */
  opcodeLimitPerMinute: number;
  now: () => number;
  logger?: Logger;
}

/** The delivery body for a transaction; built by hand so a u64 lt stays an exact JSON integer. */
export function transactionBody(tx: Pick<TransactionModel, 'account' | 'lt' | 'hash'>): string {
  return `{"account_id":"${tx.account}","lt":${tx.lt.toString()},"tx_hash":"${tx.hash}"}`;
}

export function mempoolBody(message: PendingMessage): string {
  return JSON.stringify({ boc: message.boc });
}

/** Ordering key of an account's deliveries of one kind. */
export const accountKey = (type: WebhookEventType, account: string) => `${type}:${account}`;

/** The opcodes a transaction carries for msg_opcode subscriptions (see the header). */
export function messageOpcodes(tx: TransactionModel): number[] {
  const out: number[] = [];
  if (tx.inMessage?.opcode != null) out.push(tx.inMessage.opcode);
  for (const m of tx.outMessages) if (m.type === 'external-out' && m.opcode !== null) out.push(m.opcode);
  return out;
}

export function isNewContract(tx: TransactionModel): boolean {
  return (tx.origStatus === 'nonexist' || tx.origStatus === 'uninit') && tx.endStatus === 'active';
}

export class WebhookRouter {
  private readonly rate = new Map<string, { window: number; count: number }>();
  private disabledInBatch: Array<{ webhookId: number; opcode: number }> = [];
  /** The outbox rows of the batch being handled, for the worker once it has committed. */
  private receipt: EnqueueReceipt | null = null;

  constructor(private readonly o: RouterOptions) {}

  /** Delivery intents for a batch of events, in event order. */
  match(batch: EventBatch): DeliveryIntent[] {
    const intents: DeliveryIntent[] = [];
    for (const event of batch.events) {
      if (event.type === 'transaction') this.matchTransaction(event.tx, intents);
      else if (event.type === 'mempool') this.matchMempool(event.message, intents);
    }
    return intents;
  }

  /** The consumer's handler: intents and opcode disables written in the consumer's transaction. */
  async handle(batch: EventBatch, trx: Kysely<any>): Promise<void> {
    this.disabledInBatch = [];
    this.receipt = null;
    const intents = this.match(batch);
    this.receipt = await this.o.engine.enqueue(trx, intents);
    const now = this.o.now();
    for (const d of this.disabledInBatch) {
      await disableOpcode(trx, d.webhookId, d.opcode, `more than ${this.o.opcodeLimitPerMinute} matching messages in one minute`, now);
    }
  }

  /** After the batch committed: apply disables to the index and wake the delivery worker. */
  afterCommit(): void {
    for (const d of this.disabledInBatch) {
      this.o.index.removeOpcode(d.webhookId, d.opcode);
      this.o.logger?.warn({ webhookId: d.webhookId, opcode: d.opcode }, 'opcode subscription disabled: too many matches');
    }
    this.disabledInBatch = [];
    this.o.engine.notify(this.receipt ?? undefined);
    this.receipt = null;
  }

  private matchTransaction(tx: TransactionModel, out: DeliveryIntent[]): void {
    const { index } = this.o;
    let body: string | null = null;
    const bodyOf = () => (body ??= transactionBody(tx));
    const eventTimeMs = tx.utime * 1000;
    const subscribers = index.byAccount.get(tx.account);
    if (subscribers) {
      const meta = { account: tx.account, lt: tx.lt.toString() };
      for (const webhookId of subscribers) {
        out.push({ endpointId: webhookId, orderingKey: accountKey('account_tx', tx.account), eventType: 'account_tx', body: bodyOf(), meta, eventTimeMs });
      }
    }
    if (index.newContracts.size > 0 && isNewContract(tx)) {
      for (const webhookId of index.newContracts) {
        out.push({ endpointId: webhookId, orderingKey: accountKey('new_contract', tx.account), eventType: 'new_contract', body: bodyOf(), eventTimeMs });
      }
    }
    if (index.byOpcode.size > 0) {
      let matched: Set<number> | null = null;
      for (const opcode of messageOpcodes(tx)) {
        for (const webhookId of index.byOpcode.get(opcode) ?? []) {
          if (matched?.has(webhookId) || !this.allow(webhookId, opcode)) continue;
          (matched ??= new Set()).add(webhookId);
          out.push({ endpointId: webhookId, orderingKey: accountKey('msg_opcode', tx.account), eventType: 'msg_opcode', body: bodyOf(), eventTimeMs });
        }
      }
    }
  }

  private matchMempool(message: PendingMessage, out: DeliveryIntent[]): void {
    if (this.o.index.mempool.size === 0) return;
    const body = mempoolBody(message);
    for (const webhookId of this.o.index.mempool) out.push({ endpointId: webhookId, orderingKey: null, eventType: 'mempool', body });
  }

  /** Counts a match against the opcode subscription's per-minute limit; false once over it. */
  private allow(webhookId: number, opcode: number): boolean {
    const key = `${webhookId}:${opcode}`;
    const window = Math.floor(this.o.now() / 60_000);
    let r = this.rate.get(key);
    if (!r || r.window !== window) this.rate.set(key, (r = { window, count: 0 }));
    r.count++;
    if (r.count <= this.o.opcodeLimitPerMinute) return true;
    if (!this.disabledInBatch.some((d) => d.webhookId === webhookId && d.opcode === opcode)) this.disabledInBatch.push({ webhookId, opcode });
    return false;
  }
}
