// Parameters of the SSE endpoints, from a GET query or a POST JSON body, with the plain-text error
// messages of the original service (compat.md §2), and the resume position.
import { parseAccountId } from '../chain/address.js';
import type { AccountId } from '../chain/model.js';
import type { Position } from '../bus/events.js';
import { OperationError, parseOperations, type OperationFilter } from './operations.js';

export type StreamKind = 'transactions' | 'traces' | 'mempool' | 'blocks';

/** What an SSE request asks for. */
export interface SseRequest {
  kind: StreamKind;
  /** 'ALL', a list of accounts, or null (mempool and blocks without a filter). */
  accounts: 'ALL' | AccountId[] | null;
  operations: OperationFilter;
  /** Blocks only: -1, 0, or null for every workchain. */
  workchain: number | null;
  /** `?heartbeat=data`: heartbeats carry `data: {}` so browser clients can watch them. */
  heartbeatData: boolean;
  /** Resume after this position (Last-Event-ID header, else `last_event_id`); FOREIGN_EVENT_ID for an id not ours. */
  lastEventId: Position | null;
  /** The id as the client sent it (shown in a gap event). */
  lastEventIdText: string | null;
}

/** A bad parameter; answered as 400 with the message as a plain-text body. */
export class StreamParamError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
    this.name = 'StreamParamError';
  }
}

type RawValue = string | number | boolean | null | undefined | readonly unknown[];

/** A query value or body field as a list of strings; numbers are accepted in bodies. */
function strings(value: unknown, field: string, where: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? value : [value];
  return list.map((v) => {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    throw new StreamParamError(`failed to parse '${field}' parameter in ${where}`, field);
  });
}

/** A comma list (or several) split into trimmed items, empty items dropped. */
function commaItems(values: string[]): string[] {
  return values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s.length > 0);
}

/** "can't decode address <input>" is the reason text existing clients know (tongo's wording). */
export function decodeAccount(input: string): AccountId {
  try {
    return parseAccountId(input);
  } catch {
    throw new Error(`can't decode address ${input}`);
  }
}

const POSITION = /^\d{1,16}$/;

/** A decimal event id, or null when it is not one (ids are positions, below 2^53). */
export function parsePosition(text: string): Position | null {
  const t = text.trim();
  if (!POSITION.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * Stands for an event id this server never issued (TonAPI's nanosecond ids, another server's): past
 * every position, so the hub answers it with a gap event and goes live (hub.ts `notOurs`).
 */
export const FOREIGN_EVENT_ID: Position = Number.MAX_SAFE_INTEGER;

/** Any non-empty Last-Event-ID resumes: a position of ours, or FOREIGN_EVENT_ID. */
export function parseEventId(text: string): Position {
  return parsePosition(text) ?? FOREIGN_EVENT_ID;
}

export interface SseInput {
  /** Query object or JSON body. */
  params: Record<string, unknown>;
  /** `query` for GET, `body` for POST: appears in error messages. */
  where: 'query' | 'body';
  lastEventIdHeader?: string | string[];
}

export function parseSseRequest(kind: StreamKind, input: SseInput): SseRequest {
  const { params, where } = input;
  const get = (name: string) => strings(params[name] as RawValue, name, where);
  const request: SseRequest = { kind, accounts: null, operations: null, workchain: null, heartbeatData: false, lastEventId: null, lastEventIdText: null };

  if (kind === 'transactions' || kind === 'traces' || kind === 'mempool') {
    const raw = get('accounts');
    const items = raw ? commaItems(raw) : [];
    if (kind !== 'mempool' && items.length === 1 && items[0]!.toUpperCase() === 'ALL') {
      request.accounts = 'ALL';
    } else if (items.length === 0) {
      if (kind !== 'mempool') throw new StreamParamError(`failed to parse 'accounts' parameter in ${where}`, 'accounts');
    } else {
      const accounts = new Set<AccountId>();
      for (const item of items) {
        try {
          accounts.add(decodeAccount(item));
        } catch (err) {
          // The original answers traces with the generic text and transactions with the reason.
          const message =
            kind === 'traces'
              ? `failed to parse 'accounts' parameter in ${where}`
              : `failed to parse ${where} parameters: ${(err as Error).message}`;
          throw new StreamParamError(message, 'accounts');
        }
      }
      request.accounts = [...accounts];
    }
    try {
      request.operations = parseOperations(get('operations'));
    } catch (err) {
      if (!(err instanceof OperationError)) throw err;
      throw new StreamParamError(`failed to parse 'operations' parameter in ${where}: ${err.message}`, 'operations');
    }
  }

  if (kind === 'blocks') {
    const raw = get('workchain');
    if (raw && raw.length > 0) {
      const text = raw[raw.length - 1]!.trim();
      if (!/^[+-]?\d+$/.test(text)) throw new StreamParamError(`failed to parse 'workchain' parameter in ${where}`, 'workchain');
      const wc = Number(text);
      if (wc !== -1 && wc !== 0) throw new StreamParamError(`invalid 'workchain' parameter in ${where}`, 'workchain');
      request.workchain = wc;
    }
  }

  const heartbeat = get('heartbeat');
  if (heartbeat && heartbeat.length > 0) {
    const value = heartbeat[heartbeat.length - 1]!.trim().toLowerCase();
    if (value !== 'data' && value !== '') {
      throw new StreamParamError(`invalid 'heartbeat' parameter in ${where}: the only value is 'data'`, 'heartbeat');
    }
    request.heartbeatData = value === 'data';
  }

  // The header wins: a browser's EventSource sends it on reconnect while the URL keeps the first id.
  // An id that is not ours never refuses the stream: a browser would give up for good on a 400.
  const header = Array.isArray(input.lastEventIdHeader) ? input.lastEventIdHeader[0] : input.lastEventIdHeader;
  const raw = get('last_event_id');
  const text = header !== undefined && header.trim() !== '' ? header : raw?.[raw.length - 1];
  if (text !== undefined && text.trim() !== '') {
    request.lastEventId = parseEventId(text);
    request.lastEventIdText = text.trim().slice(0, 100);
  }
  return request;
}
