// What API v3 shows of a transaction that the chain model leaves out, read once from the transaction's
// cell with the arena reader (src/chain/cell: no per-cell hashing, ~100× @ton/core's parse): the account
// state hashes (HASH_UPDATE), every phase field of the description, and the message header fields and
// StateInits. Layouts: block.tlb (Transaction, TransactionDescr, Tr*Phase, CommonMsgInfo, StateInit).
import { beginCell, Cell, loadMessage, storeStateInit } from '@ton/core';
import { bocRoot, Slice, type CellRef } from '../../../chain/cell/index.js';
import { readCurrencyCollection } from '../../../chain/decode/message.js';
import { readMsgAddress } from '../../../chain/decode/msg-address.js';
import { forEachLeafE } from '../../../chain/tlb/hashmap-reader.js';
import { dec } from './encode.js';
import type { V3Description, V3MessageContent, V3Phase } from './types.js';

export interface MessageCellFacts {
  ihrDisabled: boolean | null;
  ihrFee: bigint | null;
  importFee: bigint | null;
  init: V3MessageContent | null;
}

export interface TransactionCellFacts {
  oldStateHash: string;
  newStateHash: string;
  description: V3Description;
  inMsg: MessageCellFacts | null;
  /** In out-message index order. */
  outMsgs: MessageCellFacts[];
}

const b64 = (r: Slice) => r.bytesOf(32).toString('base64');
const contentOf = (c: CellRef): V3MessageContent => ({ hash: c.hash().toString('base64'), body: c.toBoc().toString('base64'), decoded: null });

function readMessage(cell: CellRef): MessageCellFacts {
  const r = new Slice(cell);
  const out: MessageCellFacts = { ihrDisabled: null, ihrFee: null, importFee: null, init: null };
  if (!r.bool()) {
    // int_msg_info$0 ihr_disabled bounce bounced src dest value ihr_fee fwd_fee created_lt created_at
    out.ihrDisabled = r.bool();
    r.skip(2);
    readMsgAddress(r);
    readMsgAddress(r);
    readCurrencyCollection(r);
    out.ihrFee = r.coins();
    r.coins();
    r.skip(64 + 32);
  } else if (!r.bool()) {
    // ext_in_msg_info$10 src:MsgAddressExt dest import_fee
    readMsgAddress(r);
    readMsgAddress(r);
    out.importFee = r.coins();
  } else {
    readMsgAddress(r);
    readMsgAddress(r);
    r.skip(64 + 32);
  }
  if (r.bool()) {
    if (r.bool()) out.init = contentOf(r.ref());
    else {
      // an inline StateInit (rare: some deploys): serialised on its own through @ton/core
      const init = loadMessage(Cell.fromBoc(cell.toBoc())[0]!.beginParse()).init!;
      const c = beginCell().store(storeStateInit(init)).endCell();
      out.init = { hash: c.hash().toString('base64'), body: c.toBoc().toString('base64'), decoded: null };
    }
  }
  return out;
}

const STATUS_CHANGE = (r: Slice) => (!r.bool() ? 'unchanged' : r.bool() ? 'deleted' : 'frozen');
const maybeCoins = (r: Slice) => (r.bool() ? dec(r.coins()) : undefined);
const storageUsed = (r: Slice) => ({ cells: dec(r.varUint(3)), bits: dec(r.varUint(3)) });
const clean = (o: Record<string, unknown>): V3Phase => {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
};

function storagePhase(r: Slice): V3Phase {
  return clean({ storage_fees_collected: dec(r.coins()), storage_fees_due: maybeCoins(r), status_change: STATUS_CHANGE(r) });
}

function computePhase(r: Slice): V3Phase {
  if (!r.bool()) {
    const two = r.uint(2);
    const reason = two === 0 ? 'no_state' : two === 1 ? 'bad_state' : two === 2 ? 'no_gas' : (r.skip(1), 'suspended');
    return { skipped: true, reason };
  }
  const success = r.bool();
  const msgStateUsed = r.bool();
  const accountActivated = r.bool();
  const gasFees = r.coins();
  const d = r.refReader();
  const gasUsed = d.varUint(3);
  const gasLimit = d.varUint(3);
  const gasCredit = d.bool() ? d.varUint(2) : undefined;
  const mode = d.int(8);
  const exitCode = d.int(32);
  const exitArg = d.bool() ? d.int(32) : undefined;
  const vmSteps = d.uint(32);
  return clean({
    skipped: false, success, msg_state_used: msgStateUsed, account_activated: accountActivated, gas_fees: dec(gasFees), gas_used: dec(gasUsed), gas_limit: dec(gasLimit),
    gas_credit: gasCredit === undefined ? undefined : dec(gasCredit), mode, exit_code: exitCode, exit_arg: exitArg, vm_steps: vmSteps, vm_init_state_hash: b64(d), vm_final_state_hash: b64(d),
  });
}

function actionPhase(r: Slice): V3Phase {
  return clean({
    success: r.bool(), valid: r.bool(), no_funds: r.bool(), status_change: STATUS_CHANGE(r), total_fwd_fees: maybeCoins(r), total_action_fees: maybeCoins(r),
    result_code: r.int(32), result_arg: r.bool() ? r.int(32) : undefined, tot_actions: r.uint(16), spec_actions: r.uint(16), skipped_actions: r.uint(16), msgs_created: r.uint(16),
    action_list_hash: b64(r), tot_msg_size: storageUsed(r),
  });
}

function bouncePhase(r: Slice): V3Phase {
  if (r.bool()) return { type: 'ok', msg_size: storageUsed(r), msg_fees: dec(r.coins()), fwd_fees: dec(r.coins()) };
  if (!r.bool()) return { type: 'negfunds' };
  return { type: 'nofunds', msg_size: storageUsed(r), req_fwd_fees: dec(r.coins()) };
}

const OTHER_TYPES: Record<number, string> = { 0b0100: 'split_prepare', 0b0101: 'split_install', 0b0110: 'merge_prepare', 0b0111: 'merge_install' };

function description(r: Slice): V3Description {
  const tag = r.uint(4);
  if (tag === 0b0000) {
    const creditFirst = r.bool();
    const storage = r.bool() ? storagePhase(r) : undefined;
    const credit = r.bool() ? clean({ due_fees_collected: maybeCoins(r), credit: dec(readCurrencyCollection(r)) }) : undefined;
    const compute = computePhase(r);
    const action = r.bool() ? actionPhase(r.refReader()) : undefined;
    const aborted = r.bool();
    const bounce = r.bool() ? bouncePhase(r) : undefined;
    const destroyed = r.bool();
    return clean({ type: 'ord', aborted, destroyed, credit_first: creditFirst, storage_ph: storage, credit_ph: credit, compute_ph: compute, action, bounce }) as unknown as V3Description;
  }
  if (tag === 0b0001) return { type: 'storage', storage_ph: storagePhase(r) };
  if (tag >> 1 === 0b001) {
    const isTock = (tag & 1) === 1;
    const storage = storagePhase(r);
    const compute = computePhase(r);
    const action = r.bool() ? actionPhase(r.refReader()) : undefined;
    const aborted = r.bool();
    const destroyed = r.bool();
    return clean({ type: 'tick_tock', aborted, destroyed, is_tock: isTock, storage_ph: storage, compute_ph: compute, action }) as unknown as V3Description;
  }
  return { type: OTHER_TYPES[tag] ?? 'unknown' };
}

/** Reads a transaction's BoC (base64). */
export function readTransactionCell(boc: string): TransactionCellFacts {
  const r = new Slice(bocRoot(Buffer.from(boc, "base64")));
  // transaction$0111 account_addr lt prev_trans_hash prev_trans_lt now outmsg_cnt orig_status end_status
  r.skip(4 + 256 + 64 + 256 + 64 + 32 + 15 + 2 + 2);
  const msgs = r.refReader();
  const inCell = msgs.maybeRef();
  const outMsgs: MessageCellFacts[] = [];
  forEachLeafE(msgs, 15, (v) => void outMsgs.push(readMessage(v.ref() as CellRef)));
  readCurrencyCollection(r);
  const update = r.refReader();
  update.skip(8);
  const oldStateHash = b64(update);
  const newStateHash = b64(update);
  return { oldStateHash, newStateHash, description: description(r.refReader()), inMsg: inCell ? readMessage(inCell) : null, outMsgs };
}
