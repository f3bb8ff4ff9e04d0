// Transaction phases of `TransactionDescr` (block.tlb): storage, credit, compute, action, bounce.
import type { ActionPhase, BouncePhase, ComputePhase } from '../model.js';
import { readCurrencyCollection } from './message.js';
import type { Reader } from '../cell/reader.js';
import { CellLayoutError } from './reader.js';

/** `acst_unchanged$0 | acst_frozen$10 | acst_deleted$11`. */
function skipAccStatusChange(r: Reader): void {
  if (r.bool()) r.skip(1);
}

// tr_phase_storage$_ storage_fees_collected:Grams storage_fees_due:(Maybe Grams) status_change:AccStatusChange
export function skipStoragePhase(r: Reader): void {
  r.coins();
  if (r.bool()) r.coins();
  skipAccStatusChange(r);
}

// tr_phase_credit$_ due_fees_collected:(Maybe Grams) credit:CurrencyCollection
export function readCreditPhase(r: Reader): bigint {
  if (r.bool()) r.coins();
  return readCurrencyCollection(r);
}

// tr_phase_compute_skipped$0 reason:ComputeSkipReason | tr_phase_compute_vm$1 success msg_state_used
//   account_activated gas_fees:Grams ^[ gas_used gas_limit gas_credit mode exit_code exit_arg vm_steps … ]
export function readComputePhase(r: Reader): ComputePhase {
  if (!r.bool()) {
    // cskip_no_state$00 cskip_bad_state$01 cskip_no_gas$10 cskip_suspended$110
    const two = r.uint(2);
    if (two === 0) return { type: 'skipped', reason: 'no-state' };
    if (two === 1) return { type: 'skipped', reason: 'bad-state' };
    if (two === 2) return { type: 'skipped', reason: 'no-gas' };
    if (!r.bool()) return { type: 'skipped', reason: 'suspended' };
    throw new CellLayoutError('unknown compute skip reason 111');
  }
  const success = r.bool();
  r.skip(2);
  r.coins();
  const details = r.refReader();
  const gasUsed = details.varUint(3);
  details.varUint(3);
  if (details.bool()) details.varUint(2);
  details.skip(8);
  const exitCode = details.int(32);
  if (details.bool()) details.skip(32);
  const vmSteps = details.uint(32);
  return { type: 'vm', success, exitCode, gasUsed, vmSteps };
}

// tr_phase_action$_ success valid no_funds status_change total_fwd_fees:(Maybe Grams)
//   total_action_fees:(Maybe Grams) result_code:int32 result_arg:(Maybe int32) tot_actions:uint16
//   spec_actions:uint16 skipped_actions:uint16 msgs_created:uint16 action_list_hash:bits256 tot_msg_size
export function readActionPhase(cell: Reader): ActionPhase {
  const success = cell.bool();
  const valid = cell.bool();
  const noFunds = cell.bool();
  skipAccStatusChange(cell);
  if (cell.bool()) cell.coins();
  if (cell.bool()) cell.coins();
  const resultCode = cell.int(32);
  if (cell.bool()) cell.skip(32);
  const totalActions = cell.uint(16);
  cell.skip(32);
  const messagesCreated = cell.uint(16);
  return { success, valid, noFunds, resultCode, totalActions, messagesCreated };
}

/** `StorageUsed` in bounce phases: cells:(VarUInteger 7) bits:(VarUInteger 7). */
function skipStorageUsedShort(r: Reader): void {
  r.varUint(3);
  r.varUint(3);
}

// tr_phase_bounce_negfunds$00 | tr_phase_bounce_nofunds$01 msg_size req_fwd_fees:Grams
//   | tr_phase_bounce_ok$1 msg_size msg_fees:Grams fwd_fees:Grams
export function readBouncePhase(r: Reader): BouncePhase {
  if (r.bool()) {
    skipStorageUsedShort(r);
    r.coins();
    return { type: 'ok', forwardFees: r.coins() };
  }
  if (!r.bool()) return { type: 'negative-funds' };
  skipStorageUsedShort(r);
  return { type: 'no-funds', requiredForwardFees: r.coins() };
}
