// Applications of the invoicing API (docs/INVOICES.md): onboarding with the admin key, and the
// application's details, webhook URLs (logs, redelivery, back-online, test) and API token.
import { INVOICES } from './invoices.js';
import { call, get, patch, post } from './client.js';

export interface AppWebhook {
  id: number;
  url: string;
  status: 'online' | 'offline' | 'suspended';
  status_updated_at: number;
  last_online_at: number;
  failed_attempts: number;
  signing_secret: string;
  token: string;
}

export interface Application {
  id: number;
  name: string;
  description?: string;
  recipient_address: string;
  /** The recipient as wallet apps show it (non-bounceable; test-only on testnet). */
  recipient_friendly: string;
  usdt_jetton_wallet?: string;
  webhooks: AppWebhook[];
  created_at: number;
  updated_at: number;
}

export interface TokenInfo {
  id: string;
  prefix: string;
  created_at: number;
  last_used_at?: number;
}

export interface AppDeliveryLog {
  timestamp: number;
  message_id: string;
  event_type: string;
  attempt: number;
  status_code?: number | null;
  error?: string | null;
  latency_ms: number;
  message: string;
}

export interface NewApp {
  name: string;
  description?: string;
  recipient_address: string;
  webhooks?: string[];
}

const APP = `${INVOICES}/app`;
const hook = (appId: number, webhookId: number) => `${APP}/${appId}/webhook/${webhookId}`;

/** Every application (admin key), or the token's own. */
export const listApps = (opts: { key?: string; signal?: AbortSignal } = {}) => get<{ apps: Application[] }>(APP, opts).then((r) => r.apps);
export const getApp = (id: number, signal?: AbortSignal) => get<{ app: Application }>(`${APP}/${id}`, { signal }).then((r) => r.app);
export const createApp = (body: NewApp) => post<{ app: Application; token: string }>(APP, body);
export const updateApp = (id: number, body: { name?: string; description?: string | null; recipient_address?: string }) =>
  patch<{ app: Application }>(`${APP}/${id}`, body).then((r) => r.app);
export const deleteApp = (id: number) => call<unknown>('DELETE', `${APP}/${id}`);

export const addAppWebhook = (appId: number, url: string) => post<{ webhook: AppWebhook }>(`${APP}/${appId}/webhook`, { url }).then((r) => r.webhook);
export const removeAppWebhook = (appId: number, webhookId: number) => call<unknown>('DELETE', hook(appId, webhookId));
export const testAppWebhook = (appId: number, webhookId: number) => post<{ message_id: string }>(`${hook(appId, webhookId)}/test`);
export const appWebhookLogs = (appId: number, webhookId: number, offset: number, signal?: AbortSignal) =>
  get<{ logs: AppDeliveryLog[]; next_offset?: number }>(`${hook(appId, webhookId)}/logs`, { query: { offset, limit: 50 }, signal });
export const redeliverAppWebhook = (appId: number, webhookId: number, messageId: string) => post<unknown>(`${hook(appId, webhookId)}/redeliver`, { message_id: messageId });
export const appWebhookBackOnline = (appId: number, webhookId: number) => post<unknown>(`${hook(appId, webhookId)}/back-online`);

/** The token's metadata (the secret itself is stored hashed and cannot be shown again). */
export const tokenInfo = (appId: number, signal?: AbortSignal) =>
  get<{ token: TokenInfo | null }>(`${INVOICES}/token`, { query: { app_id: appId }, signal }).then((r) => r.token);
/** A new token, returned once; the old one stops working at once. */
export const regenerateToken = (appId: number) => patch<{ token: string; token_info: TokenInfo }>(`${INVOICES}/token`, undefined, { query: { app_id: appId } });
