// TransactionModel → API v3 `Transaction` (ton-index-go/index/models/blockchain.go). The model's fields
// give the identity and the links; the transaction's own cell (the model's BoC, read by
// transaction-cell.ts) gives what the model leaves out — every phase field, the account state hashes,
// message header fees — so the object is exact, not guessed.
import { messageBody } from '../../../chain/message-boc.js';
import type { HashHex, MessageModel, TransactionModel } from '../../../chain/model.js';
import { dec, v3Address, v3Hash, v3Opcode, v3Shard } from './encode.js';
import { readTransactionCell, type MessageCellFacts } from './transaction-cell.js';
import type { Finality, V3AccountState, V3Message, V3Transaction } from './types.js';

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

/** `decoded` as TON Center's marker gives it for a text comment (its back-compatible form, keys sorted by Go). */
function decodedBody(m: MessageModel): Record<string, unknown> | null {
  if (m.decoded.kind === 'text_comment') return { '@type': 'text_comment', comment: m.decoded.text, type: 'text_comment' };
  return null;
}

/** One message; `cell` is what its cell adds (null when only the model is at hand). */
export function v3Message(m: MessageModel, cell: MessageCellFacts | null, hashNorm?: HashHex | null): V3Message {
  const internal = m.type === 'internal';
  const out: V3Message = {
    hash: v3Hash(m.hash),
    source: m.source ? v3Address(m.source) : null,
    destination: m.destination ? v3Address(m.destination) : null,
    value: internal ? dec(m.value) : null,
    value_extra_currencies: {},
    fwd_fee: internal ? dec(m.fwdFee) : null,
    ihr_fee: cell?.ihrFee != null ? dec(cell.ihrFee) : null,
    // Since the 2025 TVM upgrade the ihr_fee field carries extra_flags; the indexer shows the one value both ways.
    extra_flags: cell?.ihrFee != null ? dec(cell.ihrFee) : null,
    created_lt: m.type === 'external-in' ? null : dec(m.createdLt),
    created_at: m.type === 'external-in' ? null : dec(m.createdAt),
    opcode: m.opcode == null ? null : v3Opcode(m.opcode),
    decoded_opcode: null,
    ihr_disabled: internal ? (cell?.ihrDisabled ?? true) : null,
    bounce: internal ? m.bounce : null,
    bounced: internal ? m.bounced : null,
    import_fee: m.type === 'external-in' ? dec(cell?.importFee ?? 0n) : null,
    message_content: m.bodyBoc ? { hash: m.bodyHash ? v3Hash(m.bodyHash) : messageBody(m).hash.toString('base64'), body: m.bodyBoc, decoded: decodedBody(m) } : null,
    init_state: cell?.init ?? null,
  };
  if (m.type === 'external-in' && hashNorm) out.hash_norm = v3Hash(hashNorm);
  return out;
}

/** The state hashes come from the transaction's HASH_UPDATE; balance and code/data hashes need the state itself (null here). */
const accountState = (hash: string, status: string): V3AccountState => ({ hash, balance: null, extra_currencies: null, account_status: status, frozen_hash: null, data_hash: null, code_hash: null });

/** One API v3 `Transaction`. */
export function v3Transaction(tx: TransactionModel, ctx: TraceContext): V3Transaction {
  const cell = tx.boc ? readTransactionCell(tx.boc) : null;
  const out = { account: v3Address(tx.account), hash: v3Hash(tx.hash), lt: dec(tx.lt), now: tx.utime, mc_block_seqno: tx.mcSeqno } as V3Transaction;
  if (ctx.traceId) out.trace_id = v3Hash(ctx.traceId);
  if (ctx.traceExternalHash) out.trace_external_hash = v3Hash(ctx.traceExternalHash);
  out.prev_trans_hash = v3Hash(tx.prevHash);
  out.prev_trans_lt = dec(tx.prevLt);
  out.orig_status = tx.origStatus;
  out.end_status = tx.endStatus;
  out.total_fees = dec(tx.totalFees);
  out.total_fees_extra_currencies = {};
  out.description = cell ? cell.description : { type: tx.kind === 'generic' ? 'ord' : tx.kind === 'tick-tock' ? 'tick_tock' : tx.kind, aborted: tx.aborted, destroyed: tx.destroyed };
  out.block_ref = { workchain: tx.block.workchain, shard: v3Shard(tx.block.shard), seqno: tx.block.seqno };
  out.in_msg = tx.inMessage ? v3Message(tx.inMessage, cell?.inMsg ?? null, ctx.traceExternalHashNorm) : null;
  out.out_msgs = tx.outMessages.map((m, i) => v3Message(m, cell?.outMsgs[i] ?? null));
  out.account_state_before = cell ? accountState(cell.oldStateHash, tx.origStatus) : null;
  out.account_state_after = cell ? accountState(cell.newStateHash, tx.endStatus) : null;
  out.emulated = ctx.emulated;
  out.finality = ctx.finality;
  return out;
}

/** LT descending, as the `transactions` notification orders them (docs.ton.org, notification reference). */
export const byLtDescending = (a: TransactionModel, b: TransactionModel): number => (a.lt > b.lt ? -1 : a.lt < b.lt ? 1 : a.account < b.account ? -1 : 1);

/** The `transactions` list of one trace's notification: every transaction once, LT descending. */
export function v3Transactions(txs: readonly TransactionModel[], ctx: TraceContext): V3Transaction[] {
  return [...txs].sort(byLtDescending).map((tx) => v3Transaction(tx, ctx));
}
