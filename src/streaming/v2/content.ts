// The objects v2 notifications embed. INTERIM: the API v3 Transaction/Message/trace builders are
// owned by src/streaming/v2/v3/ (branch h33-content); until they land this writes the subset of
// API v3's Transaction that our model carries, with API v3's encodings (ton-index-go/index/models:
// base64 hashes, raw upper-case addresses, 64-bit integers as decimal strings). Replace
// `v2Transaction` and `v2TraceTree` with v3/index.ts's builders when it merges.
import type { AccountId, HashHex, MessageModel, TransactionModel } from '../../chain/model.js';
import type { V2Finality } from './request.js';

export const b64 = (hex: HashHex): string => Buffer.from(hex, 'hex').toString('base64');

export function v2Address(account: AccountId | null): string | null {
  if (account === null) return null;
  const colon = account.indexOf(':');
  return account.slice(0, colon + 1) + account.slice(colon + 1).toUpperCase();
}

const opcode = (op: number | null): string | null => (op === null ? null : '0x' + (op >>> 0).toString(16).padStart(8, '0'));

function v2Message(m: MessageModel): Record<string, unknown> {
  return {
    hash: b64(m.hash),
    source: v2Address(m.source),
    destination: v2Address(m.destination),
    value: m.type === 'internal' ? m.value.toString() : null,
    fwd_fee: m.type === 'internal' ? m.fwdFee.toString() : null,
    created_lt: m.type === 'external-in' ? null : m.createdLt.toString(),
    created_at: m.type === 'external-in' ? null : String(m.createdAt),
    opcode: opcode(m.opcode),
    bounce: m.type === 'internal' ? m.bounce : null,
    bounced: m.type === 'internal' ? m.bounced : null,
    message_content: { hash: null, body: m.bodyBoc, decoded: null },
  };
}

export function v2Transaction(tx: TransactionModel, finality: V2Finality): Record<string, unknown> {
  return {
    account: v2Address(tx.account),
    hash: b64(tx.hash),
    lt: tx.lt.toString(),
    now: tx.utime,
    mc_block_seqno: finality === 'finalized' ? tx.mcSeqno : 0,
    prev_trans_hash: b64(tx.prevHash),
    prev_trans_lt: tx.prevLt.toString(),
    orig_status: tx.origStatus,
    end_status: tx.endStatus,
    total_fees: tx.totalFees.toString(),
    description: { type: tx.kind === 'generic' ? 'ord' : tx.kind, aborted: tx.aborted, destroyed: tx.destroyed },
    block_ref: { workchain: tx.block.workchain, shard: BigInt('0x' + tx.block.shard).toString(16).toUpperCase(), seqno: tx.block.seqno },
    in_msg: tx.inMessage ? v2Message(tx.inMessage) : null,
    out_msgs: tx.outMessages.map(v2Message),
    emulated: false,
    finality,
  };
}

/** The trace tree (API v3 TraceNode) over the transactions at hand: children follow out messages. */
export function v2TraceTree(txs: readonly TransactionModel[]): Record<string, unknown> | null {
  const byIn = new Map<HashHex, TransactionModel>();
  const created = new Set<HashHex>();
  for (const tx of txs) {
    if (tx.inMessage) byIn.set(tx.inMessage.hash, tx);
    for (const m of tx.outMessages) created.add(m.hash);
  }
  const root = txs.find((tx) => !tx.inMessage || !created.has(tx.inMessage.hash));
  if (!root) return null;
  const node = (tx: TransactionModel): Record<string, unknown> => ({
    tx_hash: b64(tx.hash),
    ...(tx.inMessage ? { in_msg_hash: b64(tx.inMessage.hash) } : {}),
    children: tx.outMessages.flatMap((m) => (byIn.has(m.hash) ? [node(byIn.get(m.hash)!)] : [])),
  });
  return node(root);
}
