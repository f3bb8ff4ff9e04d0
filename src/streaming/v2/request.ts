// A Streaming v2 subscription as the anchors define it (docs.ton.org "Streaming API: SSE" and
// "WebSocket"; toncenter/ton-indexer ton-streaming-go/v2/server.go, ValidateSSERequest and the WS
// `subscribe` case): the fields, their defaults and the error texts, word for word where the anchor has
// one, else the field named with its allowed values (docs/STREAMING.md, "v2").
import { Address } from '@ton/core';
import type { AccountId } from '../../chain/model.js';

export const V2_EVENT_TYPES = ['transactions', 'actions', 'trace', 'trace_invalidated', 'account_state_change', 'jettons_change'] as const;
export type V2EventType = (typeof V2_EVENT_TYPES)[number];
export const FINALITIES = ['pending', 'confirmed', 'finalized'] as const;
export type V2Finality = (typeof FINALITIES)[number];
export const FINALITY_RANK: Record<V2Finality, number> = { pending: 0, confirmed: 1, finalized: 2 };

export interface V2Subscription {
  types: Set<V2EventType>;
  /** Raw account ids (`0:abc…`), deduplicated. */
  addresses: Set<AccountId>;
  /** Normalised external message hashes as the client wrote them (hex or base64), as lower-case hex. */
  traces: Set<string>;
  minFinality: V2Finality;
  includeAddressBook: boolean;
  includeMetadata: boolean;
  actionTypes: string[];
  supportedActionTypes: string[];
}

/** A request the anchors refuse: the text goes out as `{"error": …}` (SSE: HTTP 400; WS: a reply). */
export class V2RequestError extends Error {}

const fail = (message: string): never => {
  throw new V2RequestError(message);
};

function stringList(body: Record<string, unknown>, field: string): string[] {
  const v = body[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return fail(`${field} must be an array of strings`);
  return v as string[];
}

function flag(body: Record<string, unknown>, field: string): boolean | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') return fail(`${field} must be true or false`);
  return v;
}

/** Any address form the anchors accept (raw, user-friendly bounceable or not, url-safe or not). */
export function parseAddress(text: string): AccountId {
  try {
    return Address.parse(text.trim()).toRawString() as AccountId;
  } catch {
    return fail(`invalid address: ${text}`);
  }
}

/**
 * A normalised hash as hex (64 digits) or base64 (API v3's form), kept as lower-case hex. Like the anchor
 * (validateTraceExternalHashNorms: trimmed, non-empty), any other text is accepted and matches nothing.
 */
export function parseTraceHash(text: string): string {
  const t = text.trim();
  if (t === '') return fail('trace_external_hash_norms contains empty value');
  if (/^[0-9a-fA-F]{64}$/.test(t)) return t.toLowerCase();
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) return Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('hex');
  return t;
}

/**
 * Parses a subscription (the SSE body, or a WS `subscribe` op). `previous` is the connection's current
 * subscription: on WS, omitted flags keep their value, as the anchor's `subscribe` does.
 */
export function parseSubscription(body: Record<string, unknown>, previous?: V2Subscription, actionsHeader?: string): V2Subscription {
  const types = stringList(body, 'types');
  if (types.length === 0) return fail(previous ? 'types are required' : 'types are required for subscription');
  for (const t of types) if (!(V2_EVENT_TYPES as readonly string[]).includes(t)) fail(`invalid event type: ${t}`);
  const addresses = new Set(stringList(body, 'addresses').map(parseAddress));
  const traces = new Set(stringList(body, 'trace_external_hash_norms').map(parseTraceHash));
  const hasTrace = types.includes('trace');
  const hasAddressTypes = types.some((t) => t !== 'trace');
  if (traces.size > 0 && !hasTrace) fail('trace_external_hash_norms requires type "trace"');
  if (hasTrace && traces.size === 0) fail('trace_external_hash_norms are required for trace subscription');
  if (hasAddressTypes && addresses.size === 0) fail(previous ? 'addresses are required' : 'addresses are required for subscription');
  let minFinality: V2Finality = previous?.minFinality ?? 'finalized';
  const mf = body.min_finality;
  if (mf !== undefined && mf !== null) {
    if (typeof mf !== 'string' || !(FINALITIES as readonly string[]).includes(mf)) {
      fail(`invalid min_finality: ${JSON.stringify(mf)} (allowed: "pending", "confirmed", "finalized")`);
    }
    minFinality = mf as V2Finality;
  }
  const supported = stringList(body, 'supported_action_types');
  const actionTypes = stringList(body, 'action_types');
  return {
    types: new Set(types as V2EventType[]),
    addresses,
    traces,
    minFinality,
    includeAddressBook: flag(body, 'include_address_book') ?? previous?.includeAddressBook ?? false,
    includeMetadata: flag(body, 'include_metadata') ?? previous?.includeMetadata ?? false,
    actionTypes: actionTypes.length > 0 ? actionTypes : (previous?.actionTypes ?? []),
    supportedActionTypes:
      supported.length > 0 ? supported : (previous?.supportedActionTypes ?? (actionsHeader ? actionsHeader.split(',').map((s) => s.trim()) : ['latest'])),
  };
}

/** A WS `unsubscribe`: addresses and trace hashes removed from the connection's subscription. */
export function parseUnsubscribe(body: Record<string, unknown>): { addresses: AccountId[]; traces: string[] } {
  const addresses = stringList(body, 'addresses').map(parseAddress);
  const traces = stringList(body, 'trace_external_hash_norms').map(parseTraceHash);
  if (addresses.length === 0 && traces.length === 0) fail('addresses or trace_external_hash_norms are required');
  return { addresses, traces };
}
