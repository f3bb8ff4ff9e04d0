// Test support: a ground truth of an entry's history computed independently of the indexer — the
// transactions read from the chain source with getTransactions, bodies parsed with @ton/core, and
// classified by the plain rules of compat.md §6–7 written out again here.
import { Cell, type Slice } from '@ton/core';
import { addressToRaw } from '../../src/chain/address.js';
import type { AccountId, MessageModel, TransactionModel } from '../../src/chain/model.js';
import type { ChainSource } from '../../src/chain/source.js';

export interface Expected {
  hash: string;
  lt: number;
  direction: 'in' | 'out';
  kind: string;
  status: string;
  amount: string;
  sender: string | null;
  recipients: string[];
  comment: string | null;
  jetton: string | null;
}

/** Every transaction of an account, newest first, walking prev links from its current state. */
export async function chainHistory(source: ChainSource, account: AccountId): Promise<TransactionModel[]> {
  const state = await source.getAccountState(account);
  const all: TransactionModel[] = [];
  let next = { lt: state.lastTxLt, hash: state.lastTxHash };
  while (next.lt !== 0n) {
    const page = await source.getTransactions(account, next.lt, next.hash, 16);
    all.push(...page);
    const last = page[page.length - 1]!;
    next = { lt: last.prevLt, hash: last.prevHash };
  }
  return all;
}

const body = (m: MessageModel): Slice => Cell.fromBase64(m.bodyBoc).beginParse();
const op = (m: MessageModel): number | null => {
  const s = body(m);
  return s.remainingBits >= 32 ? s.loadUint(32) : null;
};

/** Text of `op 0 + text` at the slice, or null. */
function textAt(s: Slice): string | null {
  if (s.remainingBits < 32 || s.loadUint(32) !== 0) return null;
  return s.loadStringTail();
}

function bodyText(m: MessageModel): string | null {
  try {
    return textAt(body(m));
  } catch {
    return null;
  }
}

/** forward_payload:(Either Cell ^Cell) → its comment. */
function forwardComment(s: Slice): string | null {
  try {
    if (s.remainingBits === 0) return null;
    return s.loadBit() ? textAt(s.loadRef().beginParse()) : textAt(s);
  } catch {
    return null;
  }
}

const maybeAddress = (s: Slice): string | null => {
  const a = s.loadMaybeAddress();
  return a ? addressToRaw(a) : null;
};

function executed(tx: TransactionModel): boolean {
  return tx.computePhase?.type === 'vm' && tx.computePhase.success && (tx.actionPhase?.success ?? true);
}

export function tonTruth(tx: TransactionModel, owner: AccountId): Expected[] {
  const out: Expected[] = [];
  const base = { hash: tx.hash, lt: Number(tx.lt), jetton: null };
  const m = tx.inMessage;
  if (m?.type === 'internal') {
    const code = op(m);
    const bounced = tx.outMessages.some((o) => o.bounced);
    const failed = !bounced && tx.computePhase?.type === 'vm' && !executed(tx);
    let comment: string | null = null;
    if (code === 0) comment = bodyText(m);
    if (code === 0x7362d09c) {
      const s = body(m);
      s.skip(32 + 64);
      s.loadCoins();
      s.loadMaybeAddress();
      comment = forwardComment(s);
    }
    out.push({
      ...base,
      direction: 'in',
      kind: m.bounced ? 'bounce_refund' : code === 0xd53276db ? 'excess' : code === 0x7362d09c ? 'jetton_notification_ton' : 'deposit',
      status: bounced ? 'bounced' : failed ? 'failed' : 'ok',
      amount: m.value.toString(),
      sender: m.source,
      recipients: [owner],
      comment,
    });
  }
  for (const o of tx.outMessages) {
    if (o.type !== 'internal') continue;
    let comment = bodyText(o);
    if (op(o) === 0x0f8a7ea5) comment = jettonTransferComment(o);
    out.push({ ...base, direction: 'out', kind: o.bounced ? 'bounce_refund' : 'withdrawal', status: 'ok', amount: o.value.toString(), sender: owner, recipients: [o.destination!], comment });
  }
  return out;
}

function jettonTransferComment(m: MessageModel): string | null {
  const s = body(m);
  s.skip(32 + 64);
  s.loadCoins();
  s.loadMaybeAddress();
  s.loadMaybeAddress();
  s.loadMaybeRef();
  s.loadCoins();
  return forwardComment(s);
}

export function jettonTruth(tx: TransactionModel, master: AccountId, owner: AccountId): Expected[] {
  const m = tx.inMessage;
  if (m?.type !== 'internal') return [];
  const ok = executed(tx);
  const base = { hash: tx.hash, lt: Number(tx.lt), jetton: master };
  const s = body(m);
  if (s.remainingBits < 32) return [];
  const code = s.loadUint(32);
  if (code === 0x178d4519) {
    s.skip(64);
    const amount = s.loadCoins();
    const from = maybeAddress(s);
    s.loadMaybeAddress();
    s.loadCoins();
    const comment = forwardComment(s);
    const kind = m.source === master ? 'mint' : 'deposit';
    return [{ ...base, direction: 'in', kind, status: ok ? 'ok' : 'rejected', amount: amount.toString(), sender: from ?? m.source, recipients: [owner], comment }];
  }
  if (code === 0x0f8a7ea5) {
    const comment = jettonTransferComment(m);
    s.skip(64);
    const amount = s.loadCoins();
    const destination = maybeAddress(s);
    return [{ ...base, direction: 'out', kind: 'withdrawal', status: ok ? 'ok' : 'failed', amount: amount.toString(), sender: m.source, recipients: destination ? [destination] : [], comment }];
  }
  if (code === 0x595f07bc) {
    s.skip(64);
    return [{ ...base, direction: 'out', kind: 'burn', status: ok ? 'ok' : 'failed', amount: s.loadCoins().toString(), sender: m.source, recipients: [], comment: null }];
  }
  if (code === 0xffffffff && m.bounced && s.remainingBits >= 32 && s.loadUint(32) === 0x178d4519) {
    s.skip(64);
    return [{ ...base, direction: 'in', kind: 'bounce_refund', status: ok ? 'ok' : 'failed', amount: s.loadCoins().toString(), sender: m.source, recipients: [owner], comment: null }];
  }
  return [];
}

/** transfer_notifications the owner got from anything but its tracked jetton wallets: rejected claims. */
export function claimTruth(tx: TransactionModel, owner: AccountId, genuineWallets: AccountId[]): Expected[] {
  const m = tx.inMessage;
  if (m?.type !== 'internal' || m.bounced || op(m) !== 0x7362d09c || genuineWallets.includes(m.source!)) return [];
  const s = body(m);
  s.skip(32 + 64);
  const amount = s.loadCoins();
  const sender = maybeAddress(s);
  return [{ hash: tx.hash, lt: Number(tx.lt), direction: 'in', kind: 'deposit', status: 'rejected', amount: amount.toString(), sender, recipients: [owner], comment: forwardComment(s), jetton: null }];
}

/** Newest first, as the history API orders: (lt desc, hash desc), records of one transaction in order. */
export function newestFirst(items: Expected[]): Expected[] {
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => b.item.lt - a.item.lt || (a.item.hash < b.item.hash ? 1 : a.item.hash > b.item.hash ? -1 : a.i - b.i))
    .map(({ item }) => item);
}
