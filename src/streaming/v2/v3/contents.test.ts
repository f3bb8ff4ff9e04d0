// Golden shapes of Streaming v2 notification contents, built from real devnet traces: a TON transfer,
// a USDT-like jetton transfer, a mint and a burn, a contract deploy. Expected key lists and types come
// from toncenter/ton-indexer's Go structs (field order = JSON order) and docs.ton.org's notification
// reference, never from this code; values are checked against the chain model and @ton/core.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginCell, Cell, internal, loadTransaction, toNano } from '@ton/core';
import { openTestDevnet, runTrace, type TestDevnet } from '../../../../test/support/devnet.js';
import { mintBody } from '../../../chain/devnet/jettons.js';
import { sendFromWallet } from '../../../chain/devnet/sender.js';
import { accountToAddress, addressToRaw } from '../../../chain/address.js';
import { stateHashes } from '../../../chain/block-states.js';
import type { HashHex, TransactionModel } from '../../../chain/model.js';
import {
  accountStateChange,
  actionVisible,
  expandActionTypes,
  jettonsChange,
  readContractFacts,
  traceContent,
  v3Address,
  v3Hash,
  type TraceContext,
  type V3Action,
  type V3Transaction,
} from './index.js';

let devnet: TestDevnet;
const wallet = (name: string) => devnet.directory.wallets.find((w) => w.name === name)!;
const id = (name: string) => wallet(name).id;
const master = (key: string) => devnet.directory.jettons.find((j) => j.key === key)!.masterId;
const run = (a: string, m: string, s?: Parameters<TestDevnet['chain']['runGetMethod']>[2]) => devnet.chain.runGetMethod(a, m, s);

async function jettonWalletOf(key: string, owner: string): Promise<string> {
  const res = await run(master(key), 'get_wallet_address', [{ type: 'slice', cell: beginCell().storeAddress(wallet(owner).address).endCell() }]);
  return addressToRaw((res.stack[0] as { cell: Cell }).cell.beginParse().loadAddress());
}

/** TEP-467: the external rebuilt with src addr_none, import_fee 0, no init, body in a ref. */
function normHash(tx: TransactionModel): HashHex {
  const m = tx.inMessage!;
  return beginCell().storeUint(2, 2).storeUint(0, 2).storeAddress(accountToAddress(m.destination!)).storeCoins(0).storeBit(0).storeBit(1).storeRef(Cell.fromBase64(m.bodyBoc)).endCell().hash().toString('hex');
}

function contextOf(txs: TransactionModel[]): TraceContext {
  const root = txs.find((t) => t.inMessage?.type === 'external-in')!;
  return { finality: 'finalized', emulated: false, traceId: root.hash, traceExternalHash: root.inMessage!.hash, traceExternalHashNorm: normHash(root) };
}

async function contentOf(txs: TransactionModel[]) {
  return traceContent(txs, contextOf(txs), await readContractFacts(txs, run));
}

/** Key order and JSON types, recursively (arrays by their first element). */
type Shape = string | Shape[] | { [k: string]: Shape };
function shape(v: unknown): Shape {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.length ? [shape(v[0])] : [];
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, shape(x)]));
  return typeof v;
}
const keys = (v: unknown) => Object.keys(v as object);

// ton-index-go/index/models/blockchain.go, Transaction / Message / MessageContent / AccountState / BlockId.
const TRANSACTION_KEYS = ['account', 'hash', 'lt', 'now', 'mc_block_seqno', 'trace_id', 'trace_external_hash', 'prev_trans_hash', 'prev_trans_lt', 'orig_status', 'end_status', 'total_fees', 'total_fees_extra_currencies', 'description', 'block_ref', 'in_msg', 'out_msgs', 'account_state_before', 'account_state_after', 'emulated', 'finality'];
const MESSAGE_KEYS = ['hash', 'source', 'destination', 'value', 'value_extra_currencies', 'fwd_fee', 'ihr_fee', 'extra_flags', 'created_lt', 'created_at', 'opcode', 'decoded_opcode', 'ihr_disabled', 'bounce', 'bounced', 'import_fee', 'message_content', 'init_state'];
const INTERNAL_MESSAGE: Shape = { hash: 'string', source: 'string', destination: 'string', value: 'string', value_extra_currencies: {}, fwd_fee: 'string', ihr_fee: 'string', extra_flags: 'string', created_lt: 'string', created_at: 'string', opcode: 'string', decoded_opcode: 'null', ihr_disabled: 'boolean', bounce: 'boolean', bounced: 'boolean', import_fee: 'null', message_content: { hash: 'string', body: 'string', decoded: 'null' }, init_state: 'null' };
// Action (actions.go) with the details structs of each type.
const ACTION_KEYS = ['trace_id', 'action_id', 'start_lt', 'end_lt', 'start_utime', 'end_utime', 'trace_end_lt', 'trace_end_utime', 'trace_mc_seqno_end', 'transactions', 'success', 'type', 'details', 'trace_external_hash', 'trace_external_hash_norm', 'accounts', 'finality'];
const DETAILS: Record<string, string[]> = {
  ton_transfer: ['source', 'destination', 'value', 'comment', 'encrypted'],
  jetton_transfer: ['asset', 'sender', 'receiver', 'sender_jetton_wallet', 'receiver_jetton_wallet', 'amount', 'comment', 'is_encrypted_comment', 'query_id', 'response_destination', 'custom_payload', 'forward_payload', 'forward_amount'],
  jetton_mint: ['asset', 'receiver', 'receiver_jetton_wallet', 'amount', 'ton_amount'],
  jetton_burn: ['owner', 'owner_jetton_wallet', 'asset', 'amount'],
  call_contract: ['opcode', 'source', 'destination', 'value'],
  contract_deploy: ['opcode', 'source', 'destination', 'value'],
};

const B64_HASH = /^[A-Za-z0-9+/]{43}=$/;
const RAW = /^-?\d+:[0-9A-F]{64}$/;

function checkTransaction(v3: V3Transaction, tx: TransactionModel) {
  expect(keys(v3)).toEqual(TRANSACTION_KEYS);
  expect(v3.account).toBe(v3Address(tx.account));
  expect(v3.account).toMatch(RAW);
  expect(Buffer.from(v3.hash, 'base64').toString('hex')).toBe(tx.hash);
  expect([v3.lt, v3.prev_trans_lt, v3.total_fees]).toEqual([tx.lt.toString(), tx.prevLt.toString(), tx.totalFees.toString()]);
  expect([v3.now, v3.mc_block_seqno]).toEqual([tx.utime, tx.mcSeqno]);
  expect(v3.block_ref).toEqual({ workchain: tx.block.workchain, shard: BigInt('0x' + tx.block.shard).toString(16).toUpperCase(), seqno: tx.block.seqno });
  // the description against @ton/core's own reading of the transaction cell
  const core = loadTransaction(Cell.fromBase64(tx.boc!).beginParse());
  const d = core.description;
  if (d.type !== 'generic') throw new Error('expected an ordinary transaction');
  expect(v3.description.type).toBe('ord');
  expect(keys(v3.description).filter((k) => !['storage_ph', 'credit_ph', 'action', 'bounce'].includes(k))).toEqual(['type', 'aborted', 'destroyed', 'credit_first', 'compute_ph']);
  expect([v3.description.aborted, v3.description.destroyed, v3.description.credit_first]).toEqual([d.aborted, d.destroyed, d.creditFirst]);
  if (d.computePhase.type === 'skipped') expect(v3.description.compute_ph).toEqual({ skipped: true, reason: d.computePhase.reason.replace('-', '_') });
  if (d.bouncePhase?.type === 'ok') expect(v3.description.bounce).toEqual({ type: 'ok', msg_size: { cells: d.bouncePhase.messageSize.cells.toString(), bits: d.bouncePhase.messageSize.bits.toString() }, msg_fees: d.bouncePhase.messageFees.toString(), fwd_fees: d.bouncePhase.forwardFees.toString() });
  if (d.computePhase.type === 'vm') {
    expect(keys(v3.description.compute_ph)).toEqual(['skipped', 'success', 'msg_state_used', 'account_activated', 'gas_fees', 'gas_used', 'gas_limit', ...(d.computePhase.gasCredit != null ? ['gas_credit'] : []), 'mode', 'exit_code', ...(d.computePhase.exitArg != null ? ['exit_arg'] : []), 'vm_steps', 'vm_init_state_hash', 'vm_final_state_hash']);
    const c = d.computePhase;
    expect(v3.description.compute_ph).toMatchObject({ skipped: false, success: c.success, msg_state_used: c.messageStateUsed, account_activated: c.accountActivated, gas_fees: c.gasFees.toString(), gas_used: c.gasUsed.toString(), gas_limit: c.gasLimit.toString(), mode: c.mode, exit_code: c.exitCode, vm_steps: c.vmSteps });
    expect(v3.description.compute_ph!.vm_final_state_hash).toBe(Buffer.from(c.vmFinalStateHash.toString(16).padStart(64, '0'), 'hex').toString('base64'));
  }
  if (d.actionPhase) {
    const a = d.actionPhase;
    expect(v3.description.action).toMatchObject({ success: a.success, valid: a.valid, no_funds: a.noFunds, status_change: a.statusChange, result_code: a.resultCode, tot_actions: a.totalActions, spec_actions: a.specActions, skipped_actions: a.skippedActions, msgs_created: a.messagesCreated, tot_msg_size: { cells: a.totalMessageSize.cells.toString(), bits: a.totalMessageSize.bits.toString() } });
    expect(v3.description.action!.action_list_hash).toBe(Buffer.from(a.actionListHash.toString(16).padStart(64, '0'), 'hex').toString('base64'));
    if (a.totalFwdFees != null) expect(v3.description.action!.total_fwd_fees).toBe(a.totalFwdFees.toString());
  }
  if (d.storagePhase) expect(v3.description.storage_ph).toMatchObject({ storage_fees_collected: d.storagePhase.storageFeesCollected.toString(), status_change: d.storagePhase.statusChange });
  if (d.creditPhase) expect(v3.description.credit_ph!.credit).toBe(d.creditPhase.credit.coins.toString());
  expect(v3.description.bounce === undefined).toBe(!d.bouncePhase);
  expect(v3.account_state_before!.hash).toBe(core.stateUpdate.oldHash.toString('base64'));
  expect(v3.account_state_after!.hash).toBe(core.stateUpdate.newHash.toString('base64'));
  expect(v3.out_msgs.map((m) => Buffer.from(m.hash, 'base64').toString('hex'))).toEqual(tx.outMessages.map((m) => m.hash));
  for (const m of v3.out_msgs) expect(keys(m)).toEqual(MESSAGE_KEYS);
}

function checkAction(a: V3Action, type: string, txs: TransactionModel[], omitted: string[] = []) {
  expect(a.type).toBe(type);
  expect(keys(a)).toEqual(ACTION_KEYS);
  // `omitempty` fields (ActionDetailsContractDeploy.opcode) are absent when empty
  expect(keys(a.details)).toEqual(DETAILS[type]!.filter((k) => !omitted.includes(k)));
  expect(a.action_id).toMatch(B64_HASH);
  expect(a.transactions.every((h) => txs.some((t) => v3Hash(t.hash) === h))).toBe(true);
  for (const acc of a.accounts!) expect(acc).toMatch(RAW);
}

beforeAll(async () => {
  devnet = await openTestDevnet();
}, 60_000);
afterAll(async () => {
  await devnet?.close();
});

describe('a TON transfer with a comment', () => {
  it('transactions LT descending, the trace tree, one ton_transfer action — shapes as the anchors define them', async () => {
    const { transactions: txs } = await runTrace(devnet.chain, () => devnet.control.send({ from: 'alice', to: 'bob', amount: '1500000000', comment: 'user 17' }));
    expect(txs).toHaveLength(2);
    const c = await contentOf(txs);
    const [send, receive] = txs as [TransactionModel, TransactionModel];

    // `transactions`: LT descending (docs.ton.org notification reference)
    expect(c.transactions.map((t) => t.lt)).toEqual([receive.lt.toString(), send.lt.toString()]);
    checkTransaction(c.transactions[0]!, receive);
    checkTransaction(c.transactions[1]!, send);
    const ext = c.transactions[1]!.in_msg!;
    expect(keys(ext)).toEqual([...MESSAGE_KEYS, 'hash_norm']);
    expect([ext.source, ext.value, ext.fwd_fee, ext.created_lt, ext.import_fee, ext.bounce]).toEqual([null, null, null, null, '0', null]);
    expect(Buffer.from(ext.hash_norm!, 'base64').toString('hex')).toBe(normHash(send));
    const credit = c.transactions[0]!.in_msg!;
    expect(shape(credit)).toEqual({ ...(INTERNAL_MESSAGE as object), opcode: 'string', message_content: { hash: 'string', body: 'string', decoded: { '@type': 'string', comment: 'string', type: 'string' } } });
    expect(JSON.stringify(keys(credit))).toBe(JSON.stringify(MESSAGE_KEYS));
    expect(credit.message_content!.decoded).toEqual({ '@type': 'text_comment', comment: 'user 17', type: 'text_comment' });
    expect([credit.value, credit.opcode, credit.source, credit.destination]).toEqual(['1500000000', '0x00000000', v3Address(id('alice')), v3Address(id('bob'))]);
    expect(credit.message_content!.hash).toBe(Cell.fromBase64(receive.inMessage!.bodyBoc).hash().toString('base64'));
    for (const t of c.transactions) expect([t.trace_id, t.emulated, t.finality]).toEqual([v3Hash(send.hash), false, 'finalized']);

    // `trace`: the tree {tx_hash, in_msg_hash, children} and the map keyed by base64 hash
    expect(c.trace).toEqual({ tx_hash: v3Hash(send.hash), in_msg_hash: v3Hash(send.inMessage!.hash), children: [{ tx_hash: v3Hash(receive.hash), in_msg_hash: v3Hash(receive.inMessage!.hash), children: [] }] });
    expect(keys(c.trace)).toEqual(['tx_hash', 'in_msg_hash', 'children']);
    expect(keys(c.transactionMap)).toEqual([v3Hash(send.hash), v3Hash(receive.hash)].sort());
    expect(c.transactionMap[v3Hash(receive.hash)]).toBe(c.transactions[0]);

    // `actions`: the wallet's external is not an action; the transfer is
    expect(c.actions.map((a) => a.type)).toEqual(['ton_transfer']);
    const a = c.actions[0]!;
    checkAction(a, 'ton_transfer', txs);
    expect(a.details).toEqual({ source: v3Address(id('alice')), destination: v3Address(id('bob')), value: '1500000000', comment: 'user 17', encrypted: false });
    expect([a.success, a.start_lt, a.end_lt, a.trace_end_lt, a.finality]).toEqual([true, receive.lt.toString(), receive.lt.toString(), receive.lt.toString(), 'finalized']);
    expect(a.transactions).toEqual([v3Hash(receive.hash)]);
    expect(a.accounts).toEqual([v3Address(id('alice')), v3Address(id('bob'))].sort());
    expect(a.trace_external_hash_norm).toBe(ext.hash_norm);
    expect(c.addresses).toEqual([id('alice'), id('bob')].sort());
  });
});

describe('jettons (the devnet USDT)', () => {
  it('a jetton transfer is one jetton_transfer action with its wallets proven by get-methods', async () => {
    const { transactions: txs } = await runTrace(devnet.chain, () =>
      devnet.control.jettonSend({ from: 'alice', jetton: 'usdt', to: 'merchant', amount: '2500000', comment: 'order 5' }),
    );
    const c = await contentOf(txs);
    expect(c.transactions.map((t) => BigInt(t.lt))).toEqual(txs.map((t) => t.lt).sort((a, b) => (a > b ? -1 : 1)));
    for (const v3 of c.transactions) checkTransaction(v3, txs.find((t) => v3Hash(t.hash) === v3.hash)!);
    const types = c.actions.map((a) => a.type);
    expect(types.filter((t) => t === 'jetton_transfer')).toHaveLength(1);
    // the excess and the notification belong to the jetton transfer, not to call_contract actions
    expect(types.filter((t) => t === 'call_contract')).toEqual([]);
    const a = c.actions.find((x) => x.type === 'jetton_transfer')!;
    checkAction(a, 'jetton_transfer', txs);
    const [aliceWallet, merchantWallet] = [await jettonWalletOf('usdt', 'alice'), await jettonWalletOf('usdt', 'merchant')];
    expect(a.details).toMatchObject({
      asset: v3Address(master('usdt')),
      sender: v3Address(id('alice')),
      receiver: v3Address(id('merchant')),
      sender_jetton_wallet: v3Address(aliceWallet),
      receiver_jetton_wallet: v3Address(merchantWallet),
      amount: '2500000',
      comment: 'order 5',
      is_encrypted_comment: false,
      response_destination: v3Address(id('alice')),
      custom_payload: null,
    });
    expect(a.success).toBe(true);
    expect(a.transactions.length).toBeGreaterThanOrEqual(3);
    // the trace tree covers every transaction once
    const seen: string[] = [];
    const walk = (n: { tx_hash: string; children: unknown[] }) => (seen.push(n.tx_hash), n.children.forEach((x) => walk(x as typeof n)));
    walk(c.trace!);
    expect(seen.sort()).toEqual(txs.map((t) => v3Hash(t.hash)).sort());
  });

  it('a mint by the admin is jetton_mint; a burn by a holder is jetton_burn', async () => {
    const usdt = devnet.directory.jettons.find((j) => j.key === 'usdt')!;
    const minted = await runTrace(devnet.chain, () =>
      sendFromWallet(devnet.chain, devnet.directory.faucet, [
        internal({ to: usdt.master, value: toNano('0.2'), bounce: true, body: mintBody({ minter: usdt.master, owner: wallet('carol').address, amount: 777n, queryId: 91n }) }),
      ]).then((message_hash) => ({ message_hash })),
    );
    const m = await contentOf(minted.transactions);
    const mint = m.actions.find((a) => a.type === 'jetton_mint')!;
    checkAction(mint, 'jetton_mint', minted.transactions);
    expect(mint.details).toMatchObject({ asset: v3Address(master('usdt')), receiver: v3Address(id('carol')), receiver_jetton_wallet: v3Address(await jettonWalletOf('usdt', 'carol')), amount: '777' });

    const carolWallet = await jettonWalletOf('usdt', 'carol');
    const burnBody = beginCell().storeUint(0x595f07bc, 32).storeUint(5, 64).storeCoins(300n).storeAddress(wallet('carol').address).storeBit(0).endCell();
    const burned = await runTrace(devnet.chain, () =>
      sendFromWallet(devnet.chain, wallet('carol'), [internal({ to: accountToAddress(carolWallet), value: toNano('0.1'), bounce: true, body: burnBody })]).then((message_hash) => ({ message_hash })),
    );
    const b = await contentOf(burned.transactions);
    const burn = b.actions.find((a) => a.type === 'jetton_burn')!;
    checkAction(burn, 'jetton_burn', burned.transactions);
    expect(burn.details).toEqual({ owner: v3Address(id('carol')), owner_jetton_wallet: v3Address(carolWallet), asset: v3Address(master('usdt')), amount: '300' });
    expect(burn.success).toBe(true);
  });

  it('jettons_change and account_state_change carry the documented fields, in order', async () => {
    const w = await jettonWalletOf('usdt', 'merchant');
    const state = await devnet.chain.getAccountState(w);
    const data = await run(w, 'get_wallet_data');
    const balance = (data.stack[0] as { value: bigint }).value;
    const j = jettonsChange({ address: w, balance, owner: id('merchant'), jetton: master('usdt'), lastTxLt: state.lastTxLt, code: state.code, data: state.data }, 'finalized');
    // docs.ton.org's example fields first, then JettonWallet's code_hash/data_hash
    expect(keys(j)).toEqual(['type', 'finality', 'jetton']);
    expect(keys(j.jetton)).toEqual(['address', 'balance', 'owner', 'jetton', 'last_transaction_lt', 'code_hash', 'data_hash']);
    expect(j.jetton).toMatchObject({ address: v3Address(w), balance: balance.toString(), owner: v3Address(id('merchant')), jetton: v3Address(master('usdt')), last_transaction_lt: state.lastTxLt.toString() });
    expect(j.jetton.code_hash).toBe(Cell.fromBase64(state.code!).hash().toString('base64'));

    const tx = (await devnet.chain.getTransactions(w, state.lastTxLt, state.lastTxHash, 1))[0]!;
    const after = loadTransaction(Cell.fromBase64(tx.boc!).beginParse()).stateUpdate.newHash.toString('hex');
    const s = accountStateChange(stateHashes(state), after, 'confirmed');
    expect(keys(s)).toEqual(['type', 'finality', 'account', 'state']);
    expect(s.account).toBe(v3Address(w));
    expect(keys(s.state).filter((k) => ['hash', 'balance', 'account_status', 'data_hash', 'code_hash'].includes(k))).toEqual(['hash', 'balance', 'account_status', 'data_hash', 'code_hash']);
    expect(s.state).toMatchObject({ hash: Buffer.from(after, 'hex').toString('base64'), balance: state.balance.toString(), account_status: 'active' });
    expect(s.state).toMatchObject({ code_hash: j.jetton.code_hash, data_hash: Cell.fromBase64(state.data!).hash().toString('base64') });
  });
});

describe('failures and transactions without their cell', () => {
  it('a bounced transfer is an unsuccessful ton_transfer, the bounce a call_contract; a model without its BoC still yields the documented keys', async () => {
    const { transactions: txs } = await runTrace(devnet.chain, () => devnet.control.bounce({ from: 'carol', amount: '300000000' }));
    const c = await contentOf(txs);
    // init_block: opcode 0 is a ton_transfer; the bounce (opcode 0xffffffff) is a call_contract
    expect(c.actions.map((a) => [a.type, a.success])).toEqual([['call_contract', true], ['ton_transfer', false]]);
    expect(c.actions[0]!.details).toMatchObject({ opcode: '0xffffffff', destination: v3Address(id('carol')) });
    expect(c.actions[1]!.details).toMatchObject({ source: v3Address(id('carol')), value: '300000000', comment: 'this transfer bounces' });
    // the refused transaction: compute skipped (no_state) and a bounce phase, read as @ton/core reads them
    for (const v3 of c.transactions) checkTransaction(v3, txs.find((t) => v3Hash(t.hash) === v3.hash)!);
    const refusedTx = c.transactions.find((t) => t.account !== v3Address(id('carol')))!;
    expect(refusedTx.description.compute_ph).toEqual({ skipped: true, reason: 'no_state' });
    expect(keys(refusedTx.description.bounce)).toEqual(['type', 'msg_size', 'msg_fees', 'fwd_fees']);
    const bounced = c.transactions.find((t) => t.in_msg?.bounced)!;
    expect(bounced.in_msg!.destination).toBe(v3Address(id('carol')));

    // event-log events leave the BoC out: the object keeps its keys, the phases it cannot read are absent
    const bare = txs.map(({ boc: _boc, ...rest }) => rest as TransactionModel);
    const b = traceContent(bare, contextOf(txs), await readContractFacts(bare, run));
    for (const t of b.transactions) {
      expect(keys(t)).toEqual(TRANSACTION_KEYS);
      expect(keys(t.description)).toEqual(['type', 'aborted', 'destroyed']);
      expect([t.account_state_before, t.account_state_after]).toEqual([null, null]);
      for (const m of t.out_msgs) expect(keys(m)).toEqual(MESSAGE_KEYS);
    }
    expect(b.actions.map((a) => [a.type, a.success])).toEqual(c.actions.map((a) => [a.type, a.success]));
  });
});

describe('a contract deploy', () => {
  it('a ton_transfer that activates an account also yields contract_deploy', async () => {
    let address = '';
    const { transactions: txs } = await runTrace(devnet.chain, async () => {
      const sent = await devnet.control.deploy({ from: 'dave' });
      address = sent.address;
      return sent;
    });
    const c = await contentOf(txs);
    const deploy = c.actions.find((a) => a.type === 'contract_deploy')!;
    // the deploy message has no body: no opcode, and Go's omitempty drops the field
    expect(txs.find((t) => t.account === address)!.inMessage!.opcode).toBeNull();
    checkAction(deploy, 'contract_deploy', txs, ['opcode']);
    expect(deploy.details).toMatchObject({ source: v3Address(id('dave')), destination: v3Address(address), value: '100000000' });
    const deployed = txs.find((t) => t.account === address)!;
    expect([deployed.origStatus, deployed.endStatus]).toEqual(['nonexist', 'active']);
    const transfer = c.actions.find((a) => a.type === 'ton_transfer')!;
    expect(transfer.transactions).toEqual(deploy.transactions);
    const ins = c.transactions.find((t) => t.account === v3Address(address))!.in_msg!;
    expect(keys(ins.init_state)).toEqual(['hash', 'body', 'decoded']);
  });
});

describe('supported_action_types / X-Actions-Version', () => {
  it('expands shortcuts with v1 always in, and filters by action_types', () => {
    const v1 = expandActionTypes([]);
    for (const t of ['ton_transfer', 'jetton_transfer', 'jetton_mint', 'jetton_burn', 'nft_transfer', 'nft_mint', 'contract_deploy', 'call_contract']) expect(v1.has(t)).toBe(true);
    expect(v1.has('multisig_approve')).toBe(false);
    expect(expandActionTypes(['latest']).has('cocoon_grant_refund')).toBe(true);
    expect(expandActionTypes(['nft.v3']).has('nft_purchase')).toBe(true);
    const action = { type: 'jetton_transfer' } as V3Action;
    expect(actionVisible(action, { actionTypes: new Set(), supported: v1 })).toBe(true);
    expect(actionVisible(action, { actionTypes: new Set(['ton_transfer']), supported: v1 })).toBe(false);
  });
});
