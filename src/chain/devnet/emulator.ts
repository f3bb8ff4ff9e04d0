// The TVM emulator of @ton/sandbox, driven one transaction at a time. Accounts stay in the
// emulator's own format (base64 ShardAccount BoC) so nothing is re-serialised per transaction.
import { Executor, defaultConfig } from '@ton/sandbox';
import {
  Address,
  beginCell,
  Cell,
  loadShardAccount,
  parseTuple,
  storeShardAccount,
  type ShardAccount,
  type TupleItem,
} from '@ton/core';
import type { AccountStatus, HashHex } from '../model.js';

/** The blockchain config every run uses; one string instance, since the emulator caches by identity. */
const CONFIG: string = defaultConfig;
const GET_METHOD_GAS_LIMIT = 10_000_000n;

/** `account_none$0`: the ShardAccount of an address that has never existed. */
export const NONEXISTENT_ACCOUNT: string = beginCell()
  .store(storeShardAccount({ account: null, lastTransactionLt: 0n, lastTransactionHash: 0n }))
  .endCell()
  .toBoc()
  .toString('base64');

export interface TransactionRun {
  /** The Transaction cell as the emulator produced it. */
  transaction: Cell;
  /** The account after the transaction (base64 ShardAccount). */
  shardAccount: string;
}

/** The emulator refused to produce a transaction (e.g. an external message the contract did not accept). */
export class EmulationRefused extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
  ) {
    super(message);
    this.name = 'EmulationRefused';
  }
}

export interface GetMethodRun {
  exitCode: number;
  stack: TupleItem[];
  gasUsed: bigint;
}

export class Emulator {
  private constructor(private readonly executor: Executor) {}

  static async create(): Promise<Emulator> {
    return new Emulator(await Executor.create());
  }

  async runTransaction(args: {
    shardAccount: string;
    message: Cell;
    now: number;
    lt: bigint;
    randomSeed: Buffer;
  }): Promise<TransactionRun> {
    const res = await this.executor.runTransaction({
      config: CONFIG,
      libs: null,
      verbosity: 'short',
      shardAccount: args.shardAccount,
      message: args.message,
      now: args.now,
      lt: args.lt,
      randomSeed: args.randomSeed,
      ignoreChksig: false,
      debugEnabled: false,
    });
    if (!res.result.success) {
      throw new EmulationRefused(res.result.error, res.result.vmResults?.vmExitCode ?? null);
    }
    return { transaction: Cell.fromBase64(res.result.transaction), shardAccount: res.result.shardAccount };
  }

  /** Runs a get-method on an active account; null when the account has no code to run. */
  async runGetMethod(args: {
    shardAccount: string;
    methodId: number;
    stack: TupleItem[];
    now: number;
    randomSeed: Buffer;
  }): Promise<GetMethodRun | null> {
    const account = loadShardAccount(Cell.fromBase64(args.shardAccount).beginParse()).account;
    if (!account || account.storage.state.type !== 'active') return null;
    const { code, data } = account.storage.state.state;
    if (!code || !data) return null;
    const res = await this.executor.runGetMethod({
      code,
      data,
      methodId: args.methodId,
      stack: args.stack,
      config: CONFIG,
      verbosity: 'short',
      address: account.addr,
      unixTime: args.now,
      balance: account.storage.balance.coins,
      randomSeed: args.randomSeed,
      gasLimit: GET_METHOD_GAS_LIMIT,
      debugEnabled: false,
    });
    if (!res.output.success) throw new Error(`get-method emulation failed: ${res.output.error}`);
    const exitCode = res.output.vm_exit_code;
    // a failed run leaves no meaningful stack; exit codes 0 and 1 are both success in TVM
    const stack = exitCode === 0 || exitCode === 1 ? parseTuple(Cell.fromBase64(res.output.stack)) : [];
    return { exitCode, stack, gasUsed: BigInt(res.output.gas_used) };
  }
}

/** The fields of a ShardAccount that the chain source reports. */
export interface AccountSnapshot {
  status: AccountStatus;
  balance: bigint;
  lastTxLt: bigint;
  lastTxHash: HashHex;
  code: Cell | null;
  data: Cell | null;
}

export function readShardAccount(shardAccount: string): AccountSnapshot {
  const sa = loadShardAccount(Cell.fromBase64(shardAccount).beginParse());
  const lastTxHash = sa.lastTransactionHash.toString(16).padStart(64, '0');
  if (!sa.account) {
    return { status: 'nonexist', balance: 0n, lastTxLt: sa.lastTransactionLt, lastTxHash, code: null, data: null };
  }
  const state = sa.account.storage.state;
  const active = state.type === 'active' ? state.state : null;
  return {
    status: state.type === 'active' ? 'active' : state.type === 'frozen' ? 'frozen' : 'uninit',
    balance: sa.account.storage.balance.coins,
    lastTxLt: sa.lastTransactionLt,
    lastTxHash,
    code: active?.code ?? null,
    data: active?.data ?? null,
  };
}

/** A ShardAccount for an account that exists from the zero state (no transaction yet), e.g. the faucet. */
export function zeroStateAccount(address: Address, code: Cell, data: Cell, balance: bigint): string {
  const shardAccount: ShardAccount = {
    account: {
      addr: address,
      storageStats: { used: { cells: 0n, bits: 0n }, storageExtra: null, lastPaid: 0, duePayment: null },
      storage: { lastTransLt: 0n, balance: { coins: balance }, state: { type: 'active', state: { code, data } } },
    },
    lastTransactionLt: 0n,
    lastTransactionHash: 0n,
  };
  return beginCell().store(storeShardAccount(shardAccount)).endCell().toBoc().toString('base64');
}
