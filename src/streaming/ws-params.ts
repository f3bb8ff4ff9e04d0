// Params of the WebSocket JSON-RPC methods (compat.md §3), with the original's error strings.
// Extensions, each one more item in the params array: `last_event_id=<id>` (resume) on every
// subscribe, `;operations=` on trace items, and `operations=<ops>` on subscribe_mempool.
import type { AccountId } from '../chain/model.js';
import type { Position } from '../bus/events.js';
import { OperationError, parseOperations, type OperationFilter } from './operations.js';
import { decodeAccount, FOREIGN_EVENT_ID, parsePosition } from './params.js';

/** A method's answer when its params are wrong: the reply's result string. */
export class RpcParamError extends Error {}

const INVALID_FORMAT = 'failed to process params: invalid format';
const ONLY_ONE = 'failed to process params: supported only one parameter';

/** `params` as a list of strings; a bare string counts as one item where `allowString`. */
export function paramList(params: unknown, allowString = false): string[] {
  if (params === undefined || params === null) return [];
  if (typeof params === 'string' && allowString) return [params];
  if (!Array.isArray(params) || params.some((p) => typeof p !== 'string')) throw new RpcParamError(INVALID_FORMAT);
  return params as string[];
}

/** `key=value` with a known key (case-insensitive), or null when the item is not of that form. */
function keyValue(item: string): { key: string; value: string } | null {
  const eq = item.indexOf('=');
  if (eq < 0) return null;
  return { key: item.slice(0, eq).trim().toLowerCase(), value: item.slice(eq + 1) };
}

/** A decimal too large to be ours (another server's id) resumes with a gap event; anything else is an error. */
function lastEventId(value: string): Position {
  const position = parsePosition(value);
  if (position !== null) return position;
  if (/^\s*\d+\s*$/.test(value)) return FOREIGN_EVENT_ID;
  throw new RpcParamError(`failed to process params: invalid last_event_id '${value}': expected a decimal event id`);
}

export interface AccountItems {
  /** Accounts with their operations filter, in the order given (a repeated account keeps its last filter). */
  accounts: Map<AccountId, OperationFilter>;
  lastEventId: Position | null;
  /** The id as the client sent it (shown in a gap event). */
  lastEventIdText?: string;
}

/** Items of subscribe_account / subscribe_trace: `<account>` or `<account>;operations=<op>,<op>`. */
export function parseAccountItems(items: string[]): AccountItems {
  const accounts = new Map<AccountId, OperationFilter>();
  let resume: Position | null = null;
  let resumeText: string | undefined;
  for (const item of items) {
    const kv = keyValue(item);
    if (kv && kv.key === 'last_event_id') {
      if (resume !== null) throw new RpcParamError(ONLY_ONE);
      resume = lastEventId(kv.value);
      resumeText = kv.value.trim();
      continue;
    }
    const parts = item.split(';');
    if (parts.length > 2) throw new RpcParamError(`failed to process '${item}' account: invalid format`);
    let account: AccountId;
    try {
      account = decodeAccount(parts[0]!);
    } catch (err) {
      throw new RpcParamError(`failed to process '${item}' account: ${(err as Error).message}`);
    }
    let ops: OperationFilter = null;
    if (parts.length === 2) {
      const filter = keyValue(parts[1]!);
      if (!filter || filter.key !== 'operations') throw new RpcParamError(`failed to process '${item}' account: invalid format`);
      try {
        ops = parseOperations(filter.value);
      } catch (err) {
        if (!(err instanceof OperationError)) throw err;
        throw new RpcParamError(`failed to process '${item}' account: ${err.message}`);
      }
    }
    accounts.set(account, ops);
  }
  return { accounts, lastEventId: resume, lastEventIdText: resumeText };
}

/** Items of unsubscribe_account / unsubscribe_trace: plain accounts. */
export function parseAccountList(items: string[]): AccountId[] {
  return items.map((item) => {
    try {
      return decodeAccount(item);
    } catch (err) {
      throw new RpcParamError(`failed to process '${item}' account: ${(err as Error).message}`);
    }
  });
}

export interface MempoolItems {
  /** null: every pending message, without involved_accounts. */
  accounts: AccountId[] | null;
  operations: OperationFilter;
  lastEventId: Position | null;
  /** The id as the client sent it (shown in a gap event). */
  lastEventIdText?: string;
}

/** subscribe_mempool: none, `accounts=a,b`, or a bare `a,b` (a published JS client sends that). */
export function parseMempoolItems(items: string[]): MempoolItems {
  const out: MempoolItems = { accounts: null, operations: null, lastEventId: null };
  let seenAccounts = false;
  let seenOperations = false;
  for (const item of items) {
    const kv = keyValue(item);
    if (kv && kv.key === 'last_event_id') {
      if (out.lastEventId !== null) throw new RpcParamError(ONLY_ONE);
      out.lastEventId = lastEventId(kv.value);
      out.lastEventIdText = kv.value.trim();
    } else if (kv && kv.key === 'operations') {
      if (seenOperations) throw new RpcParamError(ONLY_ONE);
      seenOperations = true;
      try {
        out.operations = parseOperations(kv.value);
      } catch (err) {
        if (!(err instanceof OperationError)) throw err;
        throw new RpcParamError(`failed to process params: ${err.message}`);
      }
    } else {
      if (kv && kv.key !== 'accounts') throw new RpcParamError(INVALID_FORMAT);
      if (seenAccounts) throw new RpcParamError(ONLY_ONE);
      seenAccounts = true;
      const list = (kv ? kv.value : item).split(',').map((s) => s.trim());
      if (list.length === 0 || list.some((s) => s === '')) throw new RpcParamError(INVALID_FORMAT);
      out.accounts = [
        ...new Set(
          list.map((a) => {
            try {
              return decodeAccount(a);
            } catch (err) {
              throw new RpcParamError(`failed to process params: ${(err as Error).message}`);
            }
          }),
        ),
      ];
    }
  }
  return out;
}

export interface BlockItems {
  workchain: number | null;
  lastEventId: Position | null;
  /** The id as the client sent it (shown in a gap event). */
  lastEventIdText?: string;
}

/** subscribe_block: none or `workchain=-1` / `workchain=0`. */
export function parseBlockItems(items: string[]): BlockItems {
  const out: BlockItems = { workchain: null, lastEventId: null };
  let seenWorkchain = false;
  for (const item of items) {
    const kv = keyValue(item);
    if (kv && kv.key === 'last_event_id') {
      if (out.lastEventId !== null) throw new RpcParamError(ONLY_ONE);
      out.lastEventId = lastEventId(kv.value);
      out.lastEventIdText = kv.value.trim();
      continue;
    }
    if (!kv || kv.key !== 'workchain') throw new RpcParamError(INVALID_FORMAT);
    if (seenWorkchain) throw new RpcParamError(ONLY_ONE);
    seenWorkchain = true;
    if (!/^[+-]?\d+$/.test(kv.value.trim())) throw new RpcParamError(INVALID_FORMAT);
    const wc = Number(kv.value.trim());
    if (wc !== -1 && wc !== 0) throw new RpcParamError('failed to process params: unknown workchain');
    out.workchain = wc;
  }
  return out;
}
