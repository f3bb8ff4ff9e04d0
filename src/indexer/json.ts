// Wire forms of the indexer's records (compat.md §6) and of the history cursor.
import type { Static } from '@sinclair/typebox';
import { parseHash } from '../chain/hash.js';
import { badRequest } from '../errors.js';
import type { Direction, TransferKind, TransferStatus } from './extract.js';
import type { Transfer } from './schemas.js';
import type { HistoryCursor } from './store.js';
import type { TransferRow } from './tables.js';

export type TransferJson = Static<typeof Transfer>;

export function transferJson(r: TransferRow): TransferJson {
  const out: TransferJson = {
    hash: r.hash,
    lt: Number(r.lt),
    utime: Number(r.utime),
    direction: r.direction as Direction,
    sender: r.sender,
    recipients: JSON.parse(r.recipients) as string[],
    jetton: r.jetton,
    amount: r.amount,
    comment: r.comment,
    fee: r.fee,
    mc_seqno: Number(r.mc_seqno),
    status: r.status as TransferStatus,
    kind: r.kind as TransferKind,
  };
  if (r.reason) out.reason = r.reason;
  return out;
}

/**
 * `next_from` names the last item of a page exactly — `<lt>:<hash>:<index>` — because several
 * records share one transaction and LTs of different contracts may coincide: continuing from
 * `lt - 1` could skip or repeat items. `before_lt` takes it back, or a plain lt (all older items).
 */
export function cursorToken(r: TransferRow): string {
  return `${r.lt}:${r.hash}:${r.idx}`;
}

const LT = /^\d{1,20}$/;
const TOKEN = /^(\d{1,20}):([^:]+):(\d{1,6})$/;
const MAX_U64 = 2n ** 64n - 1n;

export function parseBeforeLt(input: string | undefined): HistoryCursor | undefined {
  if (input === undefined || input === '') return undefined;
  const text = input.trim();
  if (LT.test(text)) {
    const lt = BigInt(text);
    if (lt > MAX_U64) throw badRequest('before_lt is larger than a u64', 'before_lt');
    return { lt };
  }
  const m = TOKEN.exec(text);
  if (!m) throw badRequest('before_lt must be an lt (decimal integer) or a next_from value like 123:<hash>:0', 'before_lt');
  const lt = BigInt(m[1]!);
  if (lt > MAX_U64) throw badRequest('before_lt is larger than a u64', 'before_lt');
  let hash: string;
  try {
    hash = parseHash(m[2]!);
  } catch (err) {
    throw badRequest(`before_lt: ${(err as Error).message}`, 'before_lt');
  }
  return { lt, hash, idx: Number(m[3]) };
}
