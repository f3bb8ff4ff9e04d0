// runSmcMethod: a get-method of an archived account run in @ton/sandbox's TVM executor, with the chain's own
// config (from the masterchain state), answered as liteServer.runMethodResult with the proofs mode asks for.
import { Executor } from '@ton/sandbox';
import { Cell, loadAccount, parseTuple, type Address, type TupleItem } from '@ton/core';
import { loadBlockInfo } from '../../tlb/block-info.js';
import { LiteErrorCode, LiteServerError } from '../tl/envelope.js';
import type { AccountId, AccountState, RunMethodResult } from '../tl/lite-api.js';
import { configOfMasterchainState } from '../trust/config-params.js';
import type { ArchivedBlock } from './archive.js';
import { ProofBuilder } from './proof-builder.js';

/** Gas a get-method may burn, as the node's liteserver allows. */
const GET_METHOD_GAS_LIMIT = 1_000_000n;

export interface GetMethodRun {
  exitCode: number;
  /** The VmStack cell left by the run (empty when it failed). */
  stack: Cell;
}

export interface GetMethodRunner {
  run(args: { code: Cell; data: Cell; address: Address; balance: bigint; methodId: number; stack: TupleItem[]; config: Cell; now: number }): Promise<GetMethodRun>;
}

/** The account found at a block, as getAccountState answers it. */
export interface FoundAccount {
  account: AccountId;
  /** The Account cell (`account$1 …`), or null when the account does not exist. */
  accountCell: Cell | null;
  shardBlock: ArchivedBlock;
  reply: AccountState;
}

/** Get-methods in @ton/sandbox's executor (one WebAssembly instance, made on first use). */
export class SandboxGetMethods implements GetMethodRunner {
  private executor: Promise<Executor> | null = null;
  // The executor caches a config by its string's identity: one string per config cell.
  private configs = new Map<string, string>();

  async run(args: Parameters<GetMethodRunner['run']>[0]): Promise<GetMethodRun> {
    this.executor ??= Executor.create();
    const executor = await this.executor;
    const key = args.config.hash().toString('hex');
    let config = this.configs.get(key);
    if (!config) {
      config = args.config.toBoc().toString('base64');
      this.configs.set(key, config);
    }
    const res = await executor.runGetMethod({
      code: args.code, data: args.data, methodId: args.methodId, stack: args.stack, config, verbosity: 'short',
      address: args.address, unixTime: args.now, balance: args.balance, randomSeed: Buffer.alloc(32), gasLimit: GET_METHOD_GAS_LIMIT,
      debugEnabled: false,
    });
    if (!res.output.success) throw new LiteServerError(LiteErrorCode.error, `get-method emulation failed: ${res.output.error}`);
    return { exitCode: res.output.vm_exit_code, stack: Cell.fromBase64(res.output.stack) };
  }
}

export interface RunSmcMethodInput {
  mode: number;
  methodId: bigint;
  /** The BoC of the VmStack the method starts with (empty for none). */
  params: Buffer;
  found: FoundAccount;
  /** The masterchain state whose ConfigParams the run sees. */
  config: Cell;
  proofBoc: (roots: Cell[]) => Buffer;
}

/** The exit code of a get-method on an account without code, as liteservers (and tonlib) report it. */
export const NOT_INITIALIZED = -256;

/** Mode bits served: 0 shard_proof+proof, 1 state_proof, 2 result. init_c7 (3) and lib_extras (4) are not. */
const SERVED_MODE = 1 | 2 | 4;

export async function runSmcMethod(runner: GetMethodRunner, input: RunSmcMethodInput): Promise<RunMethodResult> {
  const { mode, found } = input;
  if (mode & ~SERVED_MODE) throw new LiteServerError(LiteErrorCode.error, `runSmcMethod mode ${mode}: only bits 0 (proofs), 1 (state proof) and 2 (result) are served`);
  const slice = found.accountCell?.beginParse();
  const account = slice && slice.loadBit() ? loadAccount(slice) : null;
  const state = account?.storage.state;
  if (!account || state?.type !== 'active' || !state.state.code || !state.state.data) {
    // As the node answers: exit code -256 ("contract is not initialized"), the account's proofs, no result.
    const mode0 = mode & 1;
    return { mode: mode0, id: found.reply.id, shardblk: found.reply.shardblk, exitCode: NOT_INITIALIZED, ...(mode0 ? { shardProof: found.reply.shardProof, proof: found.reply.proof } : {}) };
  }
  let stack: TupleItem[];
  try {
    stack = input.params.length === 0 ? [] : parseTuple(Cell.fromBoc(input.params)[0]!);
  } catch (e) {
    throw new LiteServerError(LiteErrorCode.protoViolation, `runSmcMethod params are not a VmStack BoC: ${(e as Error).message}`);
  }
  const now = loadBlockInfo(found.shardBlock.root.refs[0]!.beginParse()).genUtime;
  const run = await runner.run({
    code: state.state.code, data: state.state.data, address: account.addr, balance: account.storage.balance.coins,
    methodId: Number(BigInt.asIntN(32, input.methodId)), stack, config: configOfMasterchainState(input.config), now,
  });
  const reply: RunMethodResult = { mode, id: found.reply.id, shardblk: found.reply.shardblk, exitCode: run.exitCode };
  if (mode & 1) {
    reply.shardProof = found.reply.shardProof;
    reply.proof = found.reply.proof;
  }
  // The whole account: a proof with nothing pruned is larger than the node's, and as valid.
  if (mode & 2) reply.stateProof = input.proofBoc([new ProofBuilder().showWhole(found.accountCell!).proof(found.accountCell!)]);
  if (mode & 4) reply.result = run.stack.toBoc();
  return reply;
}
