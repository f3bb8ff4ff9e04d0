// `Transaction` (block.tlb) → TransactionModel, on the hot path: every transaction of the chain passes
// here once. Hashes come from the cells already held; the BoC is reused when the caller has it.
import type { Cell } from '@ton/core';
import type { CellRef } from '../cell/cell.js';
import type { Reader } from '../cell/reader.js';
import type { AccountStatus, MessageModel, SourcedTransaction, TransactionModel } from '../model.js';
import { forEachLeafE } from '../tlb/hashmap.js';
import { classifyInbound } from './inbound.js';
import { decodeMessage, readCurrencyCollection } from './message.js';
import { readActionPhase, readBouncePhase, readComputePhase, readCreditPhase, skipStoragePhase } from './phases.js';
import { CellLayoutError, readerOf } from './reader.js';

export interface TransactionLocation {
  block: { workchain: number; shard: string; seqno: number };
  mcSeqno: number;
  /** Base64 BoC of the transaction when the caller already has it (saves re-serialising). */
  boc?: string;
}

const STATUSES: AccountStatus[] = ['uninit', 'frozen', 'active', 'nonexist'];

type Description = Pick<
  TransactionModel,
  'kind' | 'computePhase' | 'actionPhase' | 'bouncePhase' | 'creditAmount' | 'aborted' | 'destroyed'
>;

const NO_PHASES: Description = {
  kind: 'other',
  computePhase: null,
  actionPhase: null,
  bouncePhase: null,
  creditAmount: null,
  aborted: false,
  destroyed: false,
};

/** `Maybe ^TrActionPhase` */
function readMaybeAction(r: Reader) {
  return r.bool() ? readActionPhase(r.refReader()) : null;
}

// split_merge_info$_ cur_shard_pfx_len:(## 6) acc_split_depth:(## 6) this_addr:bits256 sibling_addr:bits256
const SPLIT_MERGE_INFO_BITS = 6 + 6 + 256 + 256;

function readDescription(r: Reader): Description {
  const tag = r.uint(4);
  if (tag === 0b0000) {
    // trans_ord credit_first storage_ph:(Maybe) credit_ph:(Maybe) compute_ph action:(Maybe ^) aborted bounce:(Maybe) destroyed
    r.skip(1);
    if (r.bool()) skipStoragePhase(r);
    const creditAmount = r.bool() ? readCreditPhase(r) : null;
    const computePhase = readComputePhase(r);
    const actionPhase = readMaybeAction(r);
    const aborted = r.bool();
    const bouncePhase = r.bool() ? readBouncePhase(r) : null;
    const destroyed = r.bool();
    return { kind: 'generic', computePhase, actionPhase, bouncePhase, creditAmount, aborted, destroyed };
  }
  if (tag === 0b0001) return { ...NO_PHASES, kind: 'storage' };
  if (tag === 0b0010 || tag === 0b0011) {
    // trans_tick_tock$001 is_tock storage_ph compute_ph action:(Maybe ^) aborted destroyed
    skipStoragePhase(r);
    const computePhase = readComputePhase(r);
    const actionPhase = readMaybeAction(r);
    return { ...NO_PHASES, kind: 'tick-tock', computePhase, actionPhase, aborted: r.bool(), destroyed: r.bool() };
  }
  if (tag === 0b0100) {
    // trans_split_prepare split_info storage_ph:(Maybe) compute_ph action:(Maybe ^) aborted destroyed
    r.skip(SPLIT_MERGE_INFO_BITS);
    if (r.bool()) skipStoragePhase(r);
    const computePhase = readComputePhase(r);
    const actionPhase = readMaybeAction(r);
    return { ...NO_PHASES, kind: 'split-merge', computePhase, actionPhase, aborted: r.bool(), destroyed: r.bool() };
  }
  if (tag === 0b0110) {
    // trans_merge_prepare split_info storage_ph aborted
    r.skip(SPLIT_MERGE_INFO_BITS);
    skipStoragePhase(r);
    return { ...NO_PHASES, kind: 'split-merge', aborted: r.bool() };
  }
  if (tag === 0b0111) {
    // trans_merge_install split_info ^prepare storage_ph:(Maybe) credit_ph:(Maybe) compute_ph action aborted destroyed
    r.skip(SPLIT_MERGE_INFO_BITS);
    r.ref();
    if (r.bool()) skipStoragePhase(r);
    const creditAmount = r.bool() ? readCreditPhase(r) : null;
    const computePhase = readComputePhase(r);
    const actionPhase = readMaybeAction(r);
    return { kind: 'split-merge', computePhase, actionPhase, bouncePhase: null, creditAmount, aborted: r.bool(), destroyed: r.bool() };
  }
  // trans_split_install (0101) carries no phases of its own.
  return { ...NO_PHASES, kind: tag === 0b0101 ? 'split-merge' : 'other' };
}

/** Decodes a Transaction cell. Throws CellLayoutError naming the field when the cell is not one. */
export function decodeTransaction(cell: Cell | CellRef, where: TransactionLocation): SourcedTransaction {
  if (cell.isExotic) throw new CellLayoutError('transaction is an exotic (pruned or library) cell');
  const r: Reader<Cell | CellRef> = readerOf(cell);
  let at = 'tag';
  try {
    // transaction$0111 account_addr:bits256 lt:uint64 prev_trans_hash:bits256 prev_trans_lt:uint64 now:uint32
    //   outmsg_cnt:uint15 orig_status end_status ^[ in_msg out_msgs ] total_fees state_update:^ description:^
    const tag = r.uint(4);
    if (tag !== 0b0111) throw new CellLayoutError(`expected tag 0111, found ${tag.toString(2).padStart(4, '0')}`);
    at = 'header';
    const accountHex = r.hex(256);
    const lt = r.bigUint(64);
    const prevHash = r.hex(256);
    const prevLt = r.bigUint(64);
    const utime = r.uint(32);
    r.skip(15);
    const origStatus = STATUSES[r.uint(2)]!;
    const endStatus = STATUSES[r.uint(2)]!;
    at = 'messages';
    const msgs = r.refReader();
    const inMessage = msgs.bool() ? decodeMessage(msgs.ref()) : null;
    const outMessages: MessageModel[] = [];
    // out_msgs:(HashmapE 15 ^(Message Any)), visited in key (creation) order
    forEachLeafE(msgs, 15, (leaf) => outMessages.push(decodeMessage(leaf.ref())));
    at = 'total_fees';
    const totalFees = readCurrencyCollection(r);
    at = 'description';
    r.ref();
    const description = readDescription(r.refReader());
    const workchain = where.block.workchain;
    return {
      account: `${workchain}:${accountHex}`,
      lt,
      hash: r.cellHash(),
      utime,
      prevLt,
      prevHash,
      origStatus,
      endStatus,
      kind: description.kind,
      inMessage,
      outMessages,
      computePhase: description.computePhase,
      actionPhase: description.actionPhase,
      bouncePhase: description.bouncePhase,
      creditAmount: description.creditAmount,
      totalFees,
      aborted: description.aborted,
      destroyed: description.destroyed,
      inbound: classifyInbound({ ...description, inMessage, origStatus }),
      block: { workchain, shard: where.block.shard, seqno: where.block.seqno },
      mcSeqno: where.mcSeqno,
      boc: where.boc ?? r.cellBoc().toString('base64'),
    };
  } catch (err) {
    if (err instanceof CellLayoutError) throw new CellLayoutError(`transaction ${at}: ${err.message}`);
    throw err;
  }
}
