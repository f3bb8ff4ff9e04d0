// `Message Any` (block.tlb) → MessageModel. The hash is the message cell's own (computed when the cell
// was built), so decoding a transaction never re-hashes anything.
import { beginCell, type Cell } from '@ton/core';
import type { CellRef } from '../cell/cell.js';
import type { Reader } from '../cell/reader.js';
import type { MessageModel, MessageType } from '../model.js';
import { decodeBodyAt } from './body.js';
import { readAccountAddress, readMsgAddress } from './msg-address.js';
import { peekOpcode } from './opcode.js';
import { CellLayoutError, readerOf } from './reader.js';

const EMPTY_BODY_BOC = beginCell().endCell().toBoc().toString('base64');

/** Skips `currencies$_ grams:Grams other:ExtraCurrencyCollection` and returns the grams. */
export function readCurrencyCollection(r: Reader): bigint {
  const grams = r.coins();
  r.skipMaybeRef();
  return grams;
}

/** Skips an inline StateInit: split_depth special code data library. */
function skipStateInit(r: Reader): void {
  if (r.bool()) r.skip(5);
  if (r.bool()) r.skip(2);
  r.skipMaybeRef();
  r.skipMaybeRef();
  r.skipMaybeRef();
}

/** Decodes a Message cell. Throws CellLayoutError (with the field) when it is not a message. */
export function decodeMessage(cell: Cell | CellRef): MessageModel {
  if (cell.isExotic) throw new CellLayoutError('message is an exotic (pruned or library) cell');
  const r = readerOf(cell);
  let at = 'info';
  try {
    let type: MessageType;
    let source: string | null = null;
    let destination: string | null = null;
    let value = 0n;
    let fwdFee = 0n;
    let bounce = false;
    let bounced = false;
    let createdLt = 0n;
    let createdAt = 0;
    if (!r.bool()) {
      // int_msg_info$0 ihr_disabled bounce bounced src dest value ihr_fee|extra_flags fwd_fee created_lt created_at
      type = 'internal';
      r.skip(1);
      bounce = r.bool();
      bounced = r.bool();
      at = 'src';
      source = readMsgAddress(r);
      at = 'dest';
      destination = readAccountAddress(r);
      at = 'value';
      value = readCurrencyCollection(r);
      at = 'ihr_fee';
      r.coins();
      at = 'fwd_fee';
      fwdFee = r.coins();
      at = 'created_lt';
      createdLt = r.bigUint(64);
      createdAt = r.uint(32);
    } else if (!r.bool()) {
      // ext_in_msg_info$10 src:MsgAddressExt dest:MsgAddressInt import_fee:Grams
      type = 'external-in';
      at = 'src';
      readMsgAddress(r);
      at = 'dest';
      destination = readAccountAddress(r);
      at = 'import_fee';
      r.coins();
    } else {
      // ext_out_msg_info$11 src:MsgAddressInt dest:MsgAddressExt created_lt created_at
      type = 'external-out';
      at = 'src';
      source = readAccountAddress(r);
      at = 'dest';
      readMsgAddress(r);
      at = 'created_lt';
      createdLt = r.bigUint(64);
      createdAt = r.uint(32);
    }
    at = 'init';
    const hasInit = r.bool();
    if (hasInit) {
      if (r.bool()) r.ref();
      else skipStateInit(r);
    }
    at = 'body';
    const inRef = r.bool();
    const body = inRef ? r.refReader() : r;
    const opcode = peekOpcode(body);
    const empty = body.remainingBits === 0 && body.remainingRefs === 0;
    const bodyBoc = empty ? EMPTY_BODY_BOC : body.restToBoc().toString('base64');
    // a referenced ordinary body is its own BoC's root, hashed already with the message; an inline one is rebuilt
    const bodyHash = inRef && !body.isExotic ? body.cellHash() : undefined;
    return {
      hash: r.cellHash(),
      type,
      source,
      destination,
      value,
      fwdFee,
      bounce,
      bounced,
      createdLt,
      createdAt,
      opcode,
      bodyBoc,
      ...(bodyHash === undefined ? {} : { bodyHash }),
      hasInit,
      decoded: decodeBodyAt(body),
    };
  } catch (err) {
    if (err instanceof CellLayoutError) throw new CellLayoutError(`message ${at}: ${err.message}`);
    throw err;
  }
}
