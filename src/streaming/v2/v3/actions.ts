// API v3 actions classified from a trace (toncenter/ton-indexer, indexer/indexer/events: init_block,
// the jetton/NFT matchers, unwind_deployments, serialize_blocks; ton-index-go/index/models/actions.go
// for the JSON). Only types we can classify exactly are emitted; a message that belongs to none of them
// becomes `ton_transfer` or `call_contract`, as TON Center's basic blocks do.
import { createHash } from 'node:crypto';
import { Cell, type Slice } from '@ton/core';
import { addressToRaw } from '../../../chain/address.js';
import type { AccountId, MessageModel, TransactionModel } from '../../../chain/model.js';
import type { ContractFacts } from './facts.js';
import { dec, v3Address, v3Hash, v3Opcode } from './encode.js';
import type { TraceContext } from './transactions.js';
import type { ClassifiedActionType, V3Action } from './types.js';

export const CLASSIFIED_ACTION_TYPES: readonly ClassifiedActionType[] = [
  'ton_transfer', 'jetton_transfer', 'jetton_mint', 'jetton_burn', 'nft_transfer', 'nft_mint', 'contract_deploy', 'call_contract',
];

/** API v3 action types (ton-index-go action_versioning.go, v1–v4) tonwatch never emits. */
export const UNCLASSIFIED_ACTION_TYPES: readonly string[] = [
  'tick_tock', 'stake_deposit', 'stake_withdrawal', 'stake_withdrawal_request', 'dex_deposit_liquidity', 'dex_withdraw_liquidity',
  'jetton_swap', 'change_dns', 'delete_dns', 'renew_dns', 'subscribe', 'unsubscribe', 'election_deposit', 'election_recover', 'auction_bid',
  'multisig_create_order', 'multisig_approve', 'multisig_execute', 'vesting_send_message', 'vesting_add_whitelist',
  'evaa_supply', 'evaa_withdraw', 'evaa_liquidate', 'jvault_stake', 'jvault_unstake', 'jvault_claim', 'jvault_unstake_request',
  'nft_discovery', 'tonco_deploy_pool', 'coffee_create_vault', 'coffee_create_pool_creator', 'coffee_create_pool',
  'coffee_mev_protect_hold_funds', 'coffee_mev_protect_failed_swap', 'coffee_staking_claim_rewards', 'coffee_staking_deposit',
  'coffee_staking_withdraw', 'unknown', 'nft_put_on_sale', 'nft_put_on_auction', 'auction_outbid', 'nft_cancel_sale', 'nft_purchase',
  'nft_cancel_auction', 'nft_finish_auction', 'teleitem_start_auction', 'teleitem_cancel_auction', 'nft_update_sale', 'dns_purchase',
  'dns_release', 'layerzero_send', 'layerzero_send_tokens', 'layerzero_receive', 'layerzero_commit_packet', 'layerzero_dvn_verify',
  'cocoon_worker_payout', 'cocoon_proxy_payout', 'cocoon_proxy_charge', 'cocoon_client_top_up', 'cocoon_register_proxy',
  'cocoon_unregister_proxy', 'cocoon_client_register', 'cocoon_client_change_secret_hash', 'cocoon_client_request_refund',
  'cocoon_grant_refund', 'cocoon_client_increase_stake', 'cocoon_client_withdraw',
];

// `supported_action_types` / `X-Actions-Version` shortcuts (action_versioning.go), reduced to what names our types.
const V1 = ['call_contract', 'contract_deploy', 'ton_transfer', 'stake_deposit', 'stake_withdrawal', 'stake_withdrawal_request', 'dex_deposit_liquidity', 'jetton_transfer', 'nft_transfer', 'nft_mint', 'jetton_burn', 'jetton_mint', 'jetton_swap', 'change_dns', 'delete_dns', 'renew_dns', 'subscribe', 'dex_withdraw_liquidity', 'unsubscribe', 'election_deposit', 'election_recover', 'auction_bid', 'tick_tock'];
const SHORTCUTS: Record<string, string[]> = {
  v1: V1,
  v2: ['v1', 'multisig_create_order', 'multisig_approve', 'multisig_execute', 'vesting_send_message', 'vesting_add_whitelist', 'evaa_supply', 'evaa_withdraw', 'evaa_liquidate', 'jvault_stake', 'jvault_unstake', 'jvault_claim', 'jvault_unstake_request', 'nft_discovery', 'tonco_deploy_pool', 'coffee_create_vault', 'coffee_create_pool_creator', 'coffee_create_pool', 'coffee_mev_protect_hold_funds', 'coffee_mev_protect_failed_swap', 'coffee_staking_claim_rewards', 'coffee_staking_deposit', 'coffee_staking_withdraw', 'unknown'],
  v3: ['v2', 'nft_put_on_sale', 'nft_put_on_auction', 'auction_outbid', 'nft_cancel_sale', 'nft_purchase', 'nft_cancel_auction', 'nft_finish_auction', 'teleitem_start_auction', 'teleitem_cancel_auction', 'nft_update_sale', 'dns_purchase', 'dns_release', 'layerzero_send', 'layerzero_send_tokens', 'layerzero_receive', 'layerzero_commit_packet', 'layerzero_dvn_verify'],
  v4: ['v3', 'cocoon_worker_payout', 'cocoon_proxy_payout', 'cocoon_proxy_charge', 'cocoon_client_top_up', 'cocoon_register_proxy', 'cocoon_unregister_proxy', 'cocoon_client_register', 'cocoon_client_change_secret_hash', 'cocoon_client_request_refund', 'cocoon_grant_refund', 'cocoon_client_increase_stake', 'cocoon_client_withdraw'],
  latest: ['v4'],
  staking: ['stake_deposit', 'stake_withdrawal', 'stake_withdrawal_request'],
  jettons: ['jetton_transfer', 'jetton_burn', 'jetton_mint'],
  nft: ['nft_transfer', 'nft_mint', 'auction_bid'],
  'nft.v3': ['nft', 'nft_put_on_sale', 'nft_put_on_auction', 'auction_outbid', 'nft_cancel_sale', 'nft_purchase', 'nft_cancel_auction', 'nft_finish_auction', 'teleitem_start_auction', 'teleitem_cancel_auction', 'nft_update_sale', 'dns_purchase', 'dns_release'],
  dns: ['change_dns', 'delete_dns', 'renew_dns', 'dns_purchase', 'dns_release'],
  'dns.v2': ['dns', 'dns_purchase', 'dns_release'],
};

/**
 * The set of action types a client declared it understands: shortcuts (`v1`…`latest`, `jettons`, …)
 * expanded recursively, v1 always included — as ExpandActionTypeShortcuts does. SSE takes the list
 * from `supported_action_types`, else the `X-Actions-Version` header, else `latest`.
 */
export function expandActionTypes(requested: readonly string[]): Set<string> {
  const out = new Set<string>();
  const seen = new Set<string>();
  const walk = (name: string) => {
    const expansion = SHORTCUTS[name];
    if (!expansion) return void out.add(name);
    if (seen.has(name)) return;
    seen.add(name);
    for (const n of expansion) walk(n);
  };
  for (const r of requested) walk(r);
  walk('v1');
  return out;
}

export interface ActionFilter {
  /** `action_types` as requested (empty: every type). */
  actionTypes: ReadonlySet<string>;
  /** expandActionTypes(supported_action_types). */
  supported: ReadonlySet<string>;
}

/** Whether one client sees an action (ActionsNotification.AdjustForClient); our types have no ancestor type. */
export const actionVisible = (action: V3Action, filter: ActionFilter): boolean =>
  (filter.actionTypes.size === 0 || filter.actionTypes.has(action.type)) && filter.supported.has(action.type);

// ---- classification ----

const OP = { jettonTransfer: 0x0f8a7ea5, internalTransfer: 0x178d4519, notify: 0x7362d09c, excess: 0xd53276db, burn: 0x595f07bc, burnNotification: 0x7bdd97de, nftTransfer: 0x5fcc3d14, encrypted: 0x2167da4b } as const;

interface Block {
  type: ClassifiedActionType;
  txs: TransactionModel[];
  success: boolean;
  details: Record<string, unknown>;
}

const addr = (a: AccountId | null | undefined) => (a ? v3Address(a) : null);
const computeOk = (tx: TransactionModel) => !tx.aborted && (tx.computePhase?.type !== 'vm' || tx.computePhase.success);

/** Fields of a TEP-74 transfer / TEP-62 transfer body after the amounts: custom payload and forward part. */
function readTail(s: Slice): { customPayload: string | null; forwardAmount: bigint; } {
  const custom = s.loadMaybeRef();
  return { customPayload: custom ? custom.toBoc().toString('base64') : null, forwardAmount: s.loadCoins() };
}

function forwardPayloadBoc(s: Slice): string | null {
  if (s.remainingBits === 0 && s.remainingRefs === 0) return null;
  const either = s.loadBit();
  const cell = either ? s.loadRef() : s.asCell();
  return cell.bits.length === 0 && cell.refs.length === 0 ? null : cell.toBoc().toString('base64');
}

function comment(p: { comment?: string; encryptedComment?: string }): { comment: string | null; encrypted: boolean } {
  if (p.encryptedComment !== undefined) return { comment: Buffer.from(p.encryptedComment, 'hex').toString('base64'), encrypted: true };
  if (p.comment !== undefined) return { comment: p.comment.replaceAll('\u0000', ''), encrypted: false };
  return { comment: null, encrypted: false };
}

class Trace {
  readonly byInMessage = new Map<string, TransactionModel>();
  readonly used = new Set<TransactionModel>();
  constructor(readonly txs: readonly TransactionModel[]) {
    for (const tx of txs) if (tx.inMessage) this.byInMessage.set(tx.inMessage.hash, tx);
  }
  children(tx: TransactionModel, opcode?: number): TransactionModel[] {
    const out: TransactionModel[] = [];
    for (const m of tx.outMessages) {
      const child = this.byInMessage.get(m.hash);
      if (child && (opcode === undefined || m.opcode === opcode)) out.push(child);
    }
    return out;
  }
}

function jettonTransfer(t: Trace, tx: TransactionModel, facts: ContractFacts): Block | null {
  const m = tx.inMessage!;
  const wallet = facts.jettonWallet(tx.account);
  if (m.decoded.kind !== 'jetton_transfer' || !wallet) return null;
  const d = m.decoded;
  const internal = t.children(tx, OP.internalTransfer)[0];
  const txs = [tx];
  if (internal) txs.push(internal, ...t.children(internal, OP.notify), ...t.children(internal, OP.excess));
  const body = Cell.fromBase64(m.bodyBoc).beginParse();
  body.skip(32 + 64);
  body.loadCoins();
  body.loadMaybeAddress();
  body.loadMaybeAddress();
  const tail = readTail(body);
  const c = comment(d.forwardPayload);
  return {
    type: 'jetton_transfer',
    txs,
    success: computeOk(tx) && !!internal && computeOk(internal),
    details: {
      asset: addr(wallet.jetton),
      sender: addr(m.source),
      receiver: addr(d.destination),
      sender_jetton_wallet: addr(tx.account),
      receiver_jetton_wallet: addr(internal?.account ?? tx.outMessages.find((o) => o.opcode === OP.internalTransfer)?.destination),
      amount: dec(d.amount),
      comment: c.comment,
      is_encrypted_comment: c.encrypted,
      query_id: dec(d.queryId),
      response_destination: addr(d.responseDestination),
      custom_payload: tail.customPayload,
      forward_payload: d.forwardPayload.boc ?? null,
      forward_amount: dec(d.forwardTonAmount),
    },
  };
}

function jettonBurn(t: Trace, tx: TransactionModel, facts: ContractFacts): Block | null {
  const m = tx.inMessage!;
  const wallet = facts.jettonWallet(tx.account);
  if (m.decoded.kind !== 'jetton_burn' || !wallet) return null;
  const notification = t.children(tx, OP.burnNotification)[0];
  const txs = [tx, ...(notification ? [notification, ...t.children(notification, OP.excess)] : [])];
  return {
    type: 'jetton_burn',
    txs,
    success: computeOk(tx) && !!notification && computeOk(notification),
    details: { owner: addr(m.source), owner_jetton_wallet: addr(tx.account), asset: addr(wallet.jetton), amount: dec(m.decoded.amount) },
  };
}

function jettonMint(t: Trace, tx: TransactionModel, facts: ContractFacts): Block | null {
  const m = tx.inMessage!;
  const wallet = facts.jettonWallet(tx.account);
  if (m.decoded.kind !== 'jetton_internal_transfer' || !wallet || m.source !== wallet.jetton) return null;
  return {
    type: 'jetton_mint',
    txs: [tx, ...t.children(tx, OP.notify), ...t.children(tx, OP.excess)],
    success: computeOk(tx),
    details: { asset: addr(wallet.jetton), receiver: addr(wallet.owner), receiver_jetton_wallet: addr(tx.account), amount: dec(m.decoded.amount), ton_amount: dec(m.value) },
  };
}

function nftTransfer(t: Trace, tx: TransactionModel, facts: ContractFacts): Block | null {
  const m = tx.inMessage!;
  const item = facts.nftItem(tx.account);
  if (m.opcode !== OP.nftTransfer || !item) return null;
  let body: Slice;
  let queryId: bigint, newOwner: AccountId | null, response: AccountId | null, tail: ReturnType<typeof readTail>, payload: string | null;
  try {
    body = Cell.fromBase64(m.bodyBoc).beginParse();
    body.skip(32);
    queryId = body.loadUintBig(64);
    const o = body.loadMaybeAddress();
    const r = body.loadMaybeAddress();
    newOwner = o ? addressToRaw(o) : null;
    response = r ? addressToRaw(r) : null;
    tail = readTail(body);
    payload = forwardPayloadBoc(body);
  } catch {
    return null; // not a TEP-62 transfer body: left to call_contract
  }
  if (!newOwner) return null;
  const notify = t.children(tx).filter((c) => c.inMessage?.destination === newOwner);
  const excess = t.children(tx, OP.excess);
  const c = payload ? payloadComment(payload) : { comment: null, encrypted: false };
  return {
    type: 'nft_transfer',
    txs: [tx, ...notify, ...excess],
    success: computeOk(tx),
    details: {
      nft_collection: addr(item.collection),
      nft_item: addr(tx.account),
      nft_item_index: dec(item.index),
      old_owner: addr(m.source),
      new_owner: addr(newOwner),
      is_purchase: false,
      query_id: dec(queryId),
      response_destination: addr(response),
      custom_payload: tail.customPayload,
      forward_payload: payload,
      forward_amount: dec(tail.forwardAmount),
      comment: c.comment,
      is_encrypted_comment: c.encrypted,
      marketplace: null,
      real_old_owner: null,
      marketplace_address: null,
      payout_amount: null,
      payout_address: null,
      payout_comment: null,
      payout_comment_encrypted: null,
      payout_comment_encoded: null,
      royalty_amount: null,
    },
  };
}

function payloadComment(boc: string): { comment: string | null; encrypted: boolean } {
  try {
    const s = Cell.fromBase64(boc).beginParse();
    const op = s.loadUint(32);
    if (op === 0) return { comment: s.loadStringTail().replaceAll('\u0000', ''), encrypted: false };
    if (op === OP.encrypted) return { comment: s.loadBuffer(s.remainingBits >> 3).toString('base64'), encrypted: true };
  } catch {
    // not a comment
  }
  return { comment: null, encrypted: false };
}

function nftMint(tx: TransactionModel, facts: ContractFacts): Block | null {
  const item = facts.nftItem(tx.account);
  const m = tx.inMessage!;
  if (!item || !item.collection || m.source !== item.collection || tx.origStatus === 'active' || tx.endStatus !== 'active') return null;
  return {
    type: 'nft_mint',
    txs: [tx],
    success: computeOk(tx),
    details: { ...(item.owner ? { owner: addr(item.owner) } : {}), nft_item: addr(tx.account), nft_collection: addr(item.collection), nft_item_index: dec(item.index) },
  };
}

const isTonTransfer = (m: MessageModel) => (m.opcode === null || m.opcode === 0 || m.opcode === OP.encrypted) && m.source !== null && m.destination !== null;

function basic(tx: TransactionModel): Block | null {
  const m = tx.inMessage!;
  if (m.type !== 'internal') return null; // external calls are not actions (serialize_blocks skips them)
  if (isTonTransfer(m)) {
    const c = m.decoded.kind === 'text_comment' ? { comment: m.decoded.text.replaceAll('\u0000', ''), encrypted: false } : m.decoded.kind === 'encrypted_comment' ? { comment: Buffer.from(m.decoded.data, 'hex').toString('base64'), encrypted: true } : { comment: null, encrypted: m.opcode === OP.encrypted };
    // A transfer that failed without bouncing still moved the value (TonTransferBlock's failure rules).
    const failed = !computeOk(tx) && (m.bounce || (tx.endStatus !== 'uninit' && !(tx.computePhase?.type === 'skipped' && tx.computePhase.reason === 'no-gas')));
    return { type: 'ton_transfer', txs: [tx], success: !failed, details: { source: addr(m.source), destination: addr(m.destination), value: dec(m.value), comment: c.comment, encrypted: c.encrypted } };
  }
  const failed = !computeOk(tx) && !(m.value === 0n && m.opcode);
  return { type: 'call_contract', txs: [tx], success: !failed, details: { opcode: v3Opcode(m.opcode ?? 0), source: addr(m.source), destination: addr(m.destination), value: dec(m.value) } };
}

function deploy(tx: TransactionModel): Block | null {
  const m = tx.inMessage;
  if (!m || tx.endStatus !== 'active' || tx.origStatus === 'active' || tx.origStatus === 'frozen') return null;
  return {
    type: 'contract_deploy',
    txs: [tx],
    success: computeOk(tx),
    details: { ...(m.opcode != null ? { opcode: v3Opcode(m.opcode) } : {}), ...(m.source ? { source: addr(m.source) } : {}), destination: addr(tx.account), value: dec(m.value) },
  };
}

const ltAsc = (a: TransactionModel, b: TransactionModel) => (a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : 0);

function toAction(b: Block, ctx: TraceContext, all: readonly TransactionModel[]): V3Action {
  const txs = [...new Set(b.txs)].sort(ltAsc);
  const first = txs[0]!;
  // action_id: base64(sha256(base64 hash of the first node's message + type)) — _calc_action_id.
  const key = (first.inMessage ? v3Hash(first.inMessage.hash) : v3Hash(first.hash)) + b.type;
  const traceEnd = all.reduce((a, t) => (t.lt > a.lt ? t : a), first);
  const accounts = new Set<string>(txs.map((t) => v3Address(t.account)));
  for (const v of Object.values(b.details)) if (typeof v === 'string' && /^-?\d+:[0-9A-F]{64}$/.test(v)) accounts.add(v);
  const action: V3Action = {
    trace_id: ctx.traceId ? v3Hash(ctx.traceId) : null,
    action_id: createHash('sha256').update(key).digest('base64'),
    start_lt: dec(first.lt),
    end_lt: dec(txs[txs.length - 1]!.lt),
    start_utime: Math.min(...txs.map((t) => t.utime)),
    end_utime: Math.max(...txs.map((t) => t.utime)),
    trace_end_lt: dec(traceEnd.lt),
    trace_end_utime: Math.max(...all.map((t) => t.utime)),
    trace_mc_seqno_end: Math.max(...all.map((t) => t.mcSeqno)),
    transactions: txs.map((t) => v3Hash(t.hash)),
    success: b.success,
    type: b.type,
    details: b.details,
  } as V3Action;
  if (ctx.traceExternalHash) action.trace_external_hash = v3Hash(ctx.traceExternalHash);
  if (ctx.traceExternalHashNorm) action.trace_external_hash_norm = v3Hash(ctx.traceExternalHashNorm);
  action.accounts = [...accounts].sort();
  action.finality = ctx.finality;
  return action;
}

/**
 * Every action of one trace, LT descending. Higher-level matchers (jetton, NFT) take their
 * transactions first, in ton-indexer's matcher order; what is left is a `ton_transfer` or
 * `call_contract` per internal message, and every account activated in the trace a `contract_deploy`.
 */
export function classifyActions(txs: readonly TransactionModel[], ctx: TraceContext, facts: ContractFacts): V3Action[] {
  const t = new Trace(txs);
  const blocks: Block[] = [];
  const ordered = [...txs].sort(ltAsc);
  const matchers = [(tx: TransactionModel) => nftMint(tx, facts), (tx: TransactionModel) => jettonTransfer(t, tx, facts), (tx: TransactionModel) => jettonBurn(t, tx, facts), (tx: TransactionModel) => nftTransfer(t, tx, facts), (tx: TransactionModel) => jettonMint(t, tx, facts)];
  for (const match of matchers) {
    for (const tx of ordered) {
      if (!tx.inMessage || t.used.has(tx)) continue;
      const b = match(tx);
      if (!b) continue;
      blocks.push(b);
      for (const x of b.txs) t.used.add(x);
    }
  }
  for (const tx of ordered) {
    if (!tx.inMessage || t.used.has(tx)) continue;
    const b = basic(tx);
    if (b) blocks.push(b);
  }
  for (const tx of ordered) {
    const b = deploy(tx);
    if (b) blocks.push(b);
  }
  return blocks
    .map((b) => toAction(b, ctx, txs))
    .sort((a, b) => (BigInt(b.start_lt) > BigInt(a.start_lt) ? 1 : BigInt(b.start_lt) < BigInt(a.start_lt) ? -1 : a.type < b.type ? -1 : 1));
}
