// TransactionModel → API v3 `Transaction` (ton-index-go/index/models/blockchain.go). The model's fields
// give the identity and the links; the transaction's own cell (the model's BoC) gives what the model
// leaves out — every phase field, the account state hashes, fees — so the object is exact, not guessed.
import {
  Cell,
  loadTransaction,
  type Message,
  type StateInit,
  type Transaction,
  type TransactionDescription,
} from '@ton/core';
import { beginCell, storeStateInit } from '@ton/core';
import type { HashHex, MessageModel, TransactionModel } from '../../../chain/model.js';
import { dec, v3Address, v3Hash, v3HashOfBytes, v3Opcode, v3Shard } from './encode.js';
import type { Finality, V3AccountState, V3Description, V3Message, V3MessageContent, V3Phase, V3Transaction } from './types.js';

/** What a notification knows about the trace a transaction belongs to (built once per event). */
export interface TraceContext {
  finality: Finality;
  /** True for transactions of an emulated (pending) trace. */
  emulated: boolean;
  /** Root transaction hash (API v3 `trace_id`); null when the root is not known. */
  traceId: HashHex | null;
  /** Hash of the root external message as it arrived (API v3 `trace_external_hash`), when there is one. */
  traceExternalHash?: HashHex | null;
  /** TEP-467 normalised hash of the root external message: `hash_norm` of that message. */
  traceExternalHashNorm?: HashHex | null;
}

const omitUndefined = (o: Record<string, unknown>): V3Phase => {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
};
const opt = (v: bigint | number | undefined | null) => (v == null ? undefined : dec(v));
const SKIP_REASON: Record<string, string> = { 'no-state': 'no_state', 'bad-state': 'bad_state', 'no-gas': 'no_gas', suspended: 'suspended' };

function description(d: TransactionDescription): V3Description {
  if (d.type === 'generic' || d.type === 'tick-tock') {
    const out: V3Description = { type: d.type === 'generic' ? 'ord' : 'tick_tock' };
    out.aborted = d.aborted;
    out.destroyed = d.destroyed;
    if (d.type === 'generic') out.credit_first = d.creditFirst;
    else out.is_tock = d.isTock;
    if (d.storagePhase) {
      out.storage_ph = omitUndefined({
        storage_fees_collected: dec(d.storagePhase.storageFeesCollected),
        storage_fees_due: opt(d.storagePhase.storageFeesDue),
        status_change: d.storagePhase.statusChange,
      });
    }
    if (d.type === 'generic' && d.creditPhase) {
      out.credit_ph = omitUndefined({ due_fees_collected: opt(d.creditPhase.dueFeesColelcted), credit: dec(d.creditPhase.credit.coins) });
    }
    const c = d.computePhase;
    out.compute_ph =
      c.type === 'skipped'
        ? { skipped: true, reason: SKIP_REASON[c.reason] ?? c.reason }
        : omitUndefined({
            skipped: false,
            success: c.success,
            msg_state_used: c.messageStateUsed,
            account_activated: c.accountActivated,
            gas_fees: dec(c.gasFees),
            gas_used: dec(c.gasUsed),
            gas_limit: dec(c.gasLimit),
            gas_credit: opt(c.gasCredit),
            mode: c.mode,
            exit_code: c.exitCode,
            exit_arg: c.exitArg ?? undefined,
            vm_steps: c.vmSteps,
            vm_init_state_hash: v3HashOfBytes(bigToBytes(c.vmInitStateHash)),
            vm_final_state_hash: v3HashOfBytes(bigToBytes(c.vmFinalStateHash)),
          });
    const a = d.actionPhase;
    if (a) {
      out.action = omitUndefined({
        success: a.success,
        valid: a.valid,
        no_funds: a.noFunds,
        status_change: a.statusChange,
        total_fwd_fees: opt(a.totalFwdFees),
        total_action_fees: opt(a.totalActionFees),
        result_code: a.resultCode,
        result_arg: a.resultArg ?? undefined,
        tot_actions: a.totalActions,
        spec_actions: a.specActions,
        skipped_actions: a.skippedActions,
        msgs_created: a.messagesCreated,
        action_list_hash: v3HashOfBytes(bigToBytes(a.actionListHash)),
        tot_msg_size: { cells: dec(a.totalMessageSize.cells), bits: dec(a.totalMessageSize.bits) },
      });
    }
    if (d.type === 'generic' && d.bouncePhase) {
      const b = d.bouncePhase;
      out.bounce =
        b.type === 'negative-funds'
          ? { type: 'negfunds' }
          : b.type === 'no-funds'
            ? { type: 'nofunds', msg_size: { cells: dec(b.messageSize.cells), bits: dec(b.messageSize.bits) }, req_fwd_fees: dec(b.requiredForwardFees) }
            : { type: 'ok', msg_size: { cells: dec(b.messageSize.cells), bits: dec(b.messageSize.bits) }, msg_fees: dec(b.messageFees), fwd_fees: dec(b.forwardFees) };
    }
    return reorder(out);
  }
  if (d.type === 'storage') return { type: 'storage' };
  const types: Record<string, string> = { 'split-prepare': 'split_prepare', 'split-install': 'split_install', 'merge-prepare': 'merge_prepare', 'merge-install': 'merge_install' };
  return { type: types[d.type] ?? d.type };
}

// The Go struct's field order: type aborted destroyed credit_first is_tock installed storage_ph credit_ph compute_ph action bounce split_info.
const DESCRIPTION_ORDER = ['type', 'aborted', 'destroyed', 'credit_first', 'is_tock', 'installed', 'storage_ph', 'credit_ph', 'compute_ph', 'action', 'bounce', 'split_info'] as const;
function reorder(d: V3Description): V3Description {
  const out: Record<string, unknown> = {};
  for (const k of DESCRIPTION_ORDER) if (d[k] !== undefined) out[k] = d[k];
  return out as unknown as V3Description;
}

const bigToBytes = (v: bigint): Buffer => Buffer.from(v.toString(16).padStart(64, '0'), 'hex');

function content(cell: Cell | null | undefined, decoded: Record<string, unknown> | null): V3MessageContent | null {
  if (!cell) return null;
  return { hash: v3HashOfBytes(cell.hash()), body: cell.toBoc().toString('base64'), decoded };
}

function initState(init: StateInit | null | undefined): V3MessageContent | null {
  if (!init) return null;
  return content(beginCell().store(storeStateInit(init)).endCell(), null);
}

/** `decoded` as TON Center's marker gives it for a text comment (its back-compatible form, keys sorted by Go). */
function decodedBody(m: MessageModel): Record<string, unknown> | null {
  if (m.decoded.kind === 'text_comment') return { '@type': 'text_comment', comment: m.decoded.text, type: 'text_comment' };
  return null;
}

/** One message; `core` is the same message read from the transaction cell (null when only the model is at hand). */
export function v3Message(m: MessageModel, core: Message | null, hashNorm?: HashHex | null): V3Message {
  const info = core?.info;
  const internal = info?.type === 'internal' ? info : null;
  const body = core ? core.body : m.bodyBoc ? Cell.fromBase64(m.bodyBoc) : null;
  const out: V3Message = {
    hash: v3Hash(m.hash),
    source: m.source ? v3Address(m.source) : null,
    destination: m.destination ? v3Address(m.destination) : null,
    value: m.type === 'internal' ? dec(m.value) : null,
    value_extra_currencies: {},
    fwd_fee: m.type === 'internal' ? dec(m.fwdFee) : null,
    ihr_fee: internal ? dec(internal.ihrFee) : null,
    // Since 2025 the ihr_fee field carries extra_flags (TVM upgrade); the indexer shows the one value both ways.
    extra_flags: internal ? dec(internal.ihrFee) : null,
    created_lt: m.type === 'external-in' ? null : dec(m.createdLt),
    created_at: m.type === 'external-in' ? null : dec(m.createdAt),
    opcode: m.opcode == null ? null : v3Opcode(m.opcode),
    decoded_opcode: null,
    ihr_disabled: m.type === 'internal' ? (internal?.ihrDisabled ?? true) : null,
    bounce: m.type === 'internal' ? m.bounce : null,
    bounced: m.type === 'internal' ? m.bounced : null,
    import_fee: info?.type === 'external-in' ? dec(info.importFee) : null,
    message_content: content(body, decodedBody(m)),
    init_state: initState(core?.init),
  };
  if (m.type === 'external-in' && hashNorm) out.hash_norm = v3Hash(hashNorm);
  return out;
}

/** The state hashes come from the transaction's HASH_UPDATE; balance and code/data hashes need the state itself (null here). */
function accountState(hash: Buffer, status: string): V3AccountState {
  return { hash: v3HashOfBytes(hash), balance: null, extra_currencies: null, account_status: status, frozen_hash: null, data_hash: null, code_hash: null };
}

/** Reads the transaction cell once; null when the model came without its BoC (event-log events). */
export function coreTransaction(tx: TransactionModel): Transaction | null {
  return tx.boc ? loadTransaction(Cell.fromBase64(tx.boc).beginParse()) : null;
}

/** One API v3 `Transaction`. */
export function v3Transaction(tx: TransactionModel, ctx: TraceContext): V3Transaction {
  const core = coreTransaction(tx);
  const inMsg = tx.inMessage ? v3Message(tx.inMessage, core?.inMessage ?? null, ctx.traceExternalHashNorm) : null;
  const coreOut = core ? [...core.outMessages.keys()].sort((a, b) => a - b).map((k) => core.outMessages.get(k)!) : [];
  const out: V3Transaction = {
    account: v3Address(tx.account),
    hash: v3Hash(tx.hash),
    lt: dec(tx.lt),
    now: tx.utime,
    mc_block_seqno: tx.mcSeqno,
  } as V3Transaction;
  if (ctx.traceId) out.trace_id = v3Hash(ctx.traceId);
  if (ctx.traceExternalHash) out.trace_external_hash = v3Hash(ctx.traceExternalHash);
  Object.assign(out, {
    prev_trans_hash: v3Hash(tx.prevHash),
    prev_trans_lt: dec(tx.prevLt),
    orig_status: tx.origStatus,
    end_status: tx.endStatus,
    total_fees: dec(tx.totalFees),
    total_fees_extra_currencies: {},
    description: core ? description(core.description) : { type: tx.kind === 'generic' ? 'ord' : tx.kind, aborted: tx.aborted, destroyed: tx.destroyed },
    block_ref: { workchain: tx.block.workchain, shard: v3Shard(tx.block.shard), seqno: tx.block.seqno },
    in_msg: inMsg,
    out_msgs: tx.outMessages.map((m, i) => v3Message(m, coreOut[i] ?? null)),
    account_state_before: core ? accountState(core.stateUpdate.oldHash, tx.origStatus) : null,
    account_state_after: core ? accountState(core.stateUpdate.newHash, tx.endStatus) : null,
    emulated: ctx.emulated,
    finality: ctx.finality,
  });
  return out;
}

/** LT descending, as the `transactions` notification orders them (docs.ton.org, notification reference). */
export const byLtDescending = (a: TransactionModel, b: TransactionModel): number => (a.lt > b.lt ? -1 : a.lt < b.lt ? 1 : a.account < b.account ? -1 : 1);

/** The `transactions` list of one trace's notification: every transaction once, LT descending. */
export function v3Transactions(txs: readonly TransactionModel[], ctx: TraceContext): V3Transaction[] {
  return [...txs].sort(byLtDescending).map((tx) => v3Transaction(tx, ctx));
}
