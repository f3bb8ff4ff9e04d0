// The webhooks API of component C (docs/WEBHOOKS.md, compat.md §4), for admin users.
import { call, get, post } from './client.js';

export interface Webhook {
  id: number;
  endpoint: string;
  token: string;
  signing_secret: string;
  subscribed_accounts: number;
  subscribed_msg_opcodes: number;
  subscribed_to_mempool: boolean;
  subscribed_to_new_contracts: boolean;
  status: 'online' | 'offline' | 'suspended';
  status_reason?: string;
  status_updated_at: string;
  last_online_at: string;
  status_failed_attempts: number;
}

export interface WebhookLog {
  timestamp: string;
  message: string;
  event_type: string;
  message_id: string;
  attempt: number;
  status_code?: number;
  error?: string;
  latency_ms: number;
}

export interface AccountSubscription {
  account_id: string;
  last_delivered_lt: number;
  failed_at?: string;
  failed_lt?: number;
  failed_attempts?: number;
}

export interface OpcodeSubscription {
  opcode: string;
  status: 'active' | 'disabled';
  disabled_at?: string;
  disabled_reason?: string;
}

export interface UsageStats {
  period_started_at: string;
  period_ended_at?: string;
  account_subscriptions: number;
  webhooks_delivered: number;
  webhooks_failed: number;
}

const base = (id: number) => `/webhooks/${id}`;

export const listWebhooks = (signal?: AbortSignal) => get<{ webhooks: Webhook[] }>('/webhooks', { signal }).then((r) => r.webhooks);
export const createWebhook = (endpoint: string) => post<{ webhook_id: number; token: string; signing_secret: string }>('/webhooks', { endpoint });
export const deleteWebhook = (id: number) => call<unknown>('DELETE', base(id));
export const newWebhookToken = (id: number) => post<{ token: string; signing_secret: string }>(`${base(id)}/generate-new-token`);
export const backOnline = (id: number) => post<unknown>(`${base(id)}/back-online`);
export const webhookLogs = (id: number, offset: number, signal?: AbortSignal) =>
  get<{ next_offset?: number; logs: WebhookLog[] }>(`${base(id)}/logs`, { query: { offset }, signal });
export const redeliver = (id: number, messageId: string) => post<unknown>(`${base(id)}/redeliver`, { message_id: messageId });
export const usageStats = (signal?: AbortSignal) => get<UsageStats>('/usage-stats', { signal });

export const accountSubscriptions = (id: number, offset: number, limit: number, signal?: AbortSignal) =>
  get<{ account_tx_subscriptions: AccountSubscription[] }>(`${base(id)}/account-tx/subscriptions`, { query: { offset, limit }, signal }).then(
    (r) => r.account_tx_subscriptions,
  );
export const subscribeAccounts = (id: number, accounts: string[]) =>
  post<unknown>(`${base(id)}/account-tx/subscribe`, { accounts: accounts.map((account_id) => ({ account_id })) });
export const unsubscribeAccounts = (id: number, accounts: string[]) => post<unknown>(`${base(id)}/account-tx/unsubscribe`, { accounts });

export const opcodeSubscriptions = (id: number, signal?: AbortSignal) =>
  get<{ subscriptions: OpcodeSubscription[] }>(`${base(id)}/msg-opcode/subscriptions`, { query: { offset: 0, limit: 1000 }, signal }).then((r) => r.subscriptions);
export const setOpcode = (id: number, opcode: string, on: boolean) =>
  post<unknown>(`${base(id)}/${on ? 'subscribe' : 'unsubscribe'}-msg-opcode/${encodeURIComponent(opcode)}`);
export const setNewContracts = (id: number, on: boolean) => post<unknown>(`${base(id)}/${on ? 'subscribe' : 'unsubscribe'}-new-contracts`);
export const setMempool = (id: number, on: boolean) => post<unknown>(`${base(id)}/mempool/${on ? 'subscribe' : 'unsubscribe'}`);
