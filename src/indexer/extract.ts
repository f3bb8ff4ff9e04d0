// Transfer extraction: one decoded transaction of a tracked contract → the value movements it made
// (compat.md §6, §7). Pure and deterministic, so backfill and live tracking write identical rows
// for the same transaction and meet without duplicates (inserts are idempotent).
import { Cell } from '@ton/core';
import type { AccountId, DecodedBody, HashHex, MessageModel, TransactionModel } from '../chain/model.js';
import { OP } from '../chain/decode/opcode.js';

/** `ton` for the owner's TON, a jetton master for the owner's jetton wallet. */
export type Asset = string;
export const TON: Asset = 'ton';
/** Asset of rejected jetton claims: transfer_notifications an owner received (see `claimRecord`). */
export const CLAIMS: Asset = '*';

/** What a tracked contract is to us: the owner's own account (asset `ton`) or its jetton wallet. */
export interface Role {
  asset: Asset;
  owner: AccountId;
}

export type Direction = 'in' | 'out';
export type TransferKind = 'deposit' | 'withdrawal' | 'excess' | 'jetton_notification_ton' | 'bounce_refund' | 'mint' | 'burn';
/**
 * `ok` the value moved; `bounced` an inbound TON transfer was refused and returned; `failed` the
 * contract failed to process it and nothing moved; `rejected` a jetton deposit that is not real
 * (refused internal_transfer, or a notification not sent by the owner's jetton wallet).
 */
export type TransferStatus = 'ok' | 'bounced' | 'failed' | 'rejected';

export interface TransferRecord {
  asset: Asset;
  owner: AccountId;
  /** The contract whose transaction made the movement (the owner, or its jetton wallet). */
  contract: AccountId;
  lt: bigint;
  hash: HashHex;
  /** Position of the record among the records of this transaction for this entry. */
  idx: number;
  direction: Direction;
  kind: TransferKind;
  status: TransferStatus;
  sender: AccountId | null;
  recipients: AccountId[];
  /** Jetton master for jetton movements, null for TON and for rejected claims. */
  jetton: AccountId | null;
  amount: bigint;
  comment: string | null;
  /** TON the contract paid for the transaction; on the first record of the transaction only. */
  fee: bigint;
  utime: number;
  mcSeqno: number;
  reason: string | null;
  /** Contract that sent the inbound message, for claims (who notified). */
  source: AccountId | null;
}

/** One processed transaction of a tracked entry: the audit's ledger line and prev link. */
export interface LedgerLine {
  asset: Asset;
  owner: AccountId;
  lt: bigint;
  hash: HashHex;
  prevLt: bigint;
  prevHash: HashHex;
  utime: number;
  mcSeqno: number;
  /** Total fees plus the forwarding fees its outbound messages carry: what it cost beyond values. */
  fee: bigint;
}

export interface Extraction {
  ledger: LedgerLine;
  transfers: TransferRecord[];
}

/** burn_notification, which a jetton wallet sends to the master and gets back when it bounces. */
const OP_BURN_NOTIFICATION = 0x7bdd97de;

/** Fees the account paid: total fees, plus the part of forwarding fees that travels in its messages. */
export function transactionFee(tx: TransactionModel): bigint {
  let fee = tx.totalFees;
  for (const m of tx.outMessages) if (m.type === 'internal') fee += m.fwdFee;
  return fee;
}

/** The human text a body carries: a text comment, or the comment in a jetton forward payload. */
export function commentOf(body: DecodedBody): string | null {
  switch (body.kind) {
    case 'text_comment':
      return body.text;
    case 'jetton_transfer':
    case 'jetton_internal_transfer':
    case 'jetton_notify':
      return body.forwardPayload.comment ?? null;
    default:
      return null;
  }
}

/** The contract's code ran to the end and its actions were applied (state committed). */
export function executed(tx: TransactionModel): boolean {
  const compute = tx.computePhase;
  if (!compute || compute.type !== 'vm' || !compute.success) return false;
  return !tx.actionPhase || tx.actionPhase.success;
}

function failureReason(tx: TransactionModel): string {
  const compute = tx.computePhase;
  if (!compute) return 'no compute phase';
  if (compute.type === 'skipped') return `compute skipped (${compute.reason})`;
  if (!compute.success) return `compute failed with exit code ${compute.exitCode}`;
  return `action phase failed with result code ${tx.actionPhase?.resultCode ?? 'unknown'}`;
}

export function extract(tx: TransactionModel, role: Role): Extraction {
  const transfers = role.asset === TON ? extractTon(tx, role.owner) : extractJetton(tx, role.asset, role.owner);
  const fee = transactionFee(tx);
  const first = transfers.find((t) => t.asset === role.asset);
  if (first) first.fee = fee;
  return {
    ledger: {
      asset: role.asset,
      owner: role.owner,
      lt: tx.lt,
      hash: tx.hash,
      prevLt: tx.prevLt,
      prevHash: tx.prevHash,
      utime: tx.utime,
      mcSeqno: tx.mcSeqno,
      fee,
    },
    transfers,
  };
}

function base(tx: TransactionModel, asset: Asset, owner: AccountId, idx: number) {
  return { asset, owner, contract: tx.account, lt: tx.lt, hash: tx.hash, idx, fee: 0n, utime: tx.utime, mcSeqno: tx.mcSeqno, reason: null, source: null };
}

/** Every TON movement of the owner's account: the inbound message and each outbound internal message. */
function extractTon(tx: TransactionModel, owner: AccountId): TransferRecord[] {
  const out: TransferRecord[] = [];
  const inMsg = tx.inMessage;
  if (inMsg?.type === 'internal') {
    const status = tx.inbound === 'bounced' ? 'bounced' : tx.inbound === 'failed' ? 'failed' : 'ok';
    out.push({
      ...base(tx, TON, owner, out.length),
      direction: 'in',
      kind: inboundTonKind(inMsg),
      status,
      sender: inMsg.source,
      recipients: [owner],
      jetton: null,
      amount: inMsg.value,
      comment: commentOf(inMsg.decoded),
      reason: status === 'ok' ? null : failureReason(tx),
    });
  }
  for (const m of tx.outMessages) {
    if (m.type !== 'internal') continue;
    out.push({
      ...base(tx, TON, owner, out.length),
      direction: 'out',
      // the message a bounce phase creates returns a refused deposit to its sender
      kind: m.bounced && tx.inbound === 'bounced' ? 'bounce_refund' : 'withdrawal',
      status: 'ok',
      sender: owner,
      recipients: m.destination ? [m.destination] : [],
      jetton: null,
      amount: m.value,
      comment: commentOf(m.decoded),
    });
  }
  const claim = inMsg?.type === 'internal' ? claimRecord(tx, inMsg, owner) : null;
  if (claim) out.push(claim);
  return out;
}

function inboundTonKind(m: MessageModel): TransferKind {
  if (m.bounced) return 'bounce_refund';
  if (m.decoded.kind === 'excess') return 'excess';
  if (m.decoded.kind === 'jetton_notify') return 'jetton_notification_ton';
  return 'deposit';
}

/**
 * A transfer_notification tells the owner "you received jettons", but only the owner's own jetton
 * wallet processing a successful internal_transfer proves it. Every notification is kept as a claim;
 * the history of a tracked jetton shows those not sent by that owner's tracked jetton wallets as
 * rejected (forged notifications, look-alike jettons). It is never a deposit.
 */
function claimRecord(tx: TransactionModel, m: MessageModel, owner: AccountId): TransferRecord | null {
  if (m.decoded.kind !== 'jetton_notify' || m.bounced) return null;
  return {
    ...base(tx, CLAIMS, owner, 0),
    direction: 'in',
    kind: 'deposit',
    status: 'rejected',
    sender: m.decoded.sender,
    recipients: [owner],
    jetton: null,
    amount: m.decoded.amount,
    comment: m.decoded.forwardPayload.comment ?? null,
    reason: `transfer_notification from ${m.source}, which is not the owner's wallet of this jetton (a forged notification, a look-alike or another jetton): never credited`,
    source: m.source,
  };
}

/** Jetton movements of the owner's jetton wallet (TEP-74); TON movements of the wallet are not the owner's. */
function extractJetton(tx: TransactionModel, master: AccountId, owner: AccountId): TransferRecord[] {
  const m = tx.inMessage;
  if (!m || m.type !== 'internal') return [];
  const ok = executed(tx);
  const common = { ...base(tx, master, owner, 0), jetton: master, reason: ok ? null : failureReason(tx) };
  const body = m.decoded;
  switch (body.kind) {
    case 'jetton_internal_transfer':
      return [
        {
          ...common,
          direction: 'in',
          kind: m.source === master ? 'mint' : 'deposit',
          // only the wallet's own code accepting it credits jettons; a refused one is a fake or a failure
          status: ok ? 'ok' : 'rejected',
          reason: ok ? null : `the jetton wallet refused internal_transfer: ${failureReason(tx)}`,
          sender: body.from ?? m.source,
          recipients: [owner],
          amount: body.amount,
          comment: body.forwardPayload.comment ?? null,
        },
      ];
    case 'jetton_transfer':
      return [
        {
          ...common,
          direction: 'out',
          kind: 'withdrawal',
          status: ok ? 'ok' : 'failed',
          sender: m.source,
          recipients: body.destination ? [body.destination] : [],
          amount: body.amount,
          comment: body.forwardPayload.comment ?? null,
        },
      ];
    case 'jetton_burn':
      return [{ ...common, direction: 'out', kind: 'burn', status: ok ? 'ok' : 'failed', sender: m.source, recipients: [], amount: body.amount, comment: null }];
    case 'bounced': {
      // our internal_transfer (or burn_notification) came back: the wallet credits the amount again
      if (!m.bounced || (body.originalOpcode !== OP.jettonInternalTransfer && body.originalOpcode !== OP_BURN_NOTIFICATION)) return [];
      const amount = bouncedJettonAmount(m.bodyBoc);
      if (amount === null) return [];
      return [{ ...common, direction: 'in', kind: 'bounce_refund', status: ok ? 'ok' : 'failed', sender: m.source, recipients: [owner], amount, comment: null }];
    }
    default:
      return [];
  }
}

/**
 * The amount of a bounced jetton message, or null: `0xffffffff op:32 query_id:64 amount:Coins …`, or
 * `new_bounce_body#fffffffe` whose first ref is the original body `op:32 query_id:64 amount:Coins …`.
 */
export function bouncedJettonAmount(bodyBoc: string): bigint | null {
  try {
    const body = Cell.fromBase64(bodyBoc);
    const s = body.beginParse().loadUint(32) === OP.newBounced ? body.refs[0]!.beginParse() : body.beginParse().skip(32);
    s.skip(32 + 64);
    return s.loadCoins();
  } catch {
    return null;
  }
}
