// Jetton bodies of TEP-74 (compat.md §7). Each reader starts after the 32-bit op and reports the field it
// was reading when the layout breaks, through `at`.
import type { DecodedBody } from '../model.js';
import { readMsgAddress } from './msg-address.js';
import { readForwardPayload } from './payload.js';
import type { Reader } from '../cell/reader.js';

/** The field being read, so that a failure names it. */
export interface FieldCursor {
  at: string;
}

// transfer#0f8a7ea5 query_id:uint64 amount:(VarUInteger 16) destination:MsgAddress
//   response_destination:MsgAddress custom_payload:(Maybe ^Cell) forward_ton_amount:(VarUInteger 16)
//   forward_payload:(Either Cell ^Cell)
export function readJettonTransfer(r: Reader, f: FieldCursor): DecodedBody {
  f.at = 'query_id';
  const queryId = r.bigUint(64);
  f.at = 'amount';
  const amount = r.coins();
  f.at = 'destination';
  const destination = readMsgAddress(r);
  f.at = 'response_destination';
  const responseDestination = readMsgAddress(r);
  f.at = 'custom_payload';
  r.skipMaybeRef();
  f.at = 'forward_ton_amount';
  const forwardTonAmount = r.coins();
  f.at = 'forward_payload';
  const forwardPayload = readForwardPayload(r);
  return { kind: 'jetton_transfer', queryId, amount, destination, responseDestination, forwardTonAmount, forwardPayload };
}

// internal_transfer#178d4519 query_id:uint64 amount:(VarUInteger 16) from:MsgAddress
//   response_address:MsgAddress forward_ton_amount:(VarUInteger 16) forward_payload:(Either Cell ^Cell)
export function readJettonInternalTransfer(r: Reader, f: FieldCursor): DecodedBody {
  f.at = 'query_id';
  const queryId = r.bigUint(64);
  f.at = 'amount';
  const amount = r.coins();
  f.at = 'from';
  const from = readMsgAddress(r);
  f.at = 'response_address';
  const responseAddress = readMsgAddress(r);
  f.at = 'forward_ton_amount';
  const forwardTonAmount = r.coins();
  f.at = 'forward_payload';
  const forwardPayload = readForwardPayload(r);
  return { kind: 'jetton_internal_transfer', queryId, amount, from, responseAddress, forwardTonAmount, forwardPayload };
}

// transfer_notification#7362d09c query_id:uint64 amount:(VarUInteger 16) sender:MsgAddress
//   forward_payload:(Either Cell ^Cell)
export function readJettonNotify(r: Reader, f: FieldCursor): DecodedBody {
  f.at = 'query_id';
  const queryId = r.bigUint(64);
  f.at = 'amount';
  const amount = r.coins();
  f.at = 'sender';
  const sender = readMsgAddress(r);
  f.at = 'forward_payload';
  const forwardPayload = readForwardPayload(r);
  return { kind: 'jetton_notify', queryId, amount, sender, forwardPayload };
}

// excesses#d53276db query_id:uint64
export function readExcesses(r: Reader, f: FieldCursor): DecodedBody {
  f.at = 'query_id';
  return { kind: 'excess', queryId: r.bigUint(64) };
}

// burn#595f07bc query_id:uint64 amount:(VarUInteger 16) response_destination:MsgAddress
//   custom_payload:(Maybe ^Cell)
export function readJettonBurn(r: Reader, f: FieldCursor): DecodedBody {
  f.at = 'query_id';
  const queryId = r.bigUint(64);
  f.at = 'amount';
  const amount = r.coins();
  f.at = 'response_destination';
  const responseDestination = readMsgAddress(r);
  // custom_payload is optional in practice (many burn senders end the body here); it carries nothing we report.
  return { kind: 'jetton_burn', queryId, amount, responseDestination };
}
