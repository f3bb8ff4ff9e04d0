// Get-methods and message emulation run here, in @ton/sandbox's TVM, on proven inputs only: the account's
// code and data from a proven state, the config from a proven masterchain state, libraries checked by hash.
// A liteserver's own `runSmcMethod` result is never used.
import { Executor } from '@ton/sandbox';
import { Address, beginCell, Cell, Dictionary, loadAccount, parseTuple, storeShardAccount, type Account, type TupleItem } from '@ton/core';
import type { AccountStatus } from '../model.js';
import type { GetMethodResult } from '../source.js';

const GET_METHOD_GAS_LIMIT = 10_000_000n;
const LIBRARY_CELL = 2;

/** The proven inputs of one run. */
export interface TvmContext {
  /** The config dictionary (`Hashmap 32 ^Cell`), base64 BoC: one string per config (the executor caches by identity). */
  config: string;
  /** `HashmapE 256 ^Cell` of the libraries the code needs, or null. */
  libs: Cell | null;
  now: number;
  lt: bigint;
}

/** An Account cell (`account$1 …`; `account_none$0` → null) as @ton/core reads it. */
export function parseAccount(cell: Cell): Account | null {
  const s = cell.beginParse();
  return s.loadBit() ? loadAccount(s) : null;
}

/** What an Account cell says of the account: its status, balance, and code and data cells when active. */
export function accountParts(cell: Cell): { account: Account | null; status: AccountStatus; balance: bigint; code: Cell | null; data: Cell | null } {
  const account = parseAccount(cell);
  const state = account?.storage.state;
  const active = state?.type === 'active' ? state.state : null;
  return {
    account,
    status: !state ? 'nonexist' : state.type === 'active' ? 'active' : state.type === 'frozen' ? 'frozen' : 'uninit',
    balance: account?.storage.balance.coins ?? 0n,
    code: active?.code ?? null,
    data: active?.data ?? null,
  };
}

/** The hashes of every library cell (exotic type 2) reachable from these roots. */
export function libraryHashes(roots: Cell[]): Buffer[] {
  const found = new Map<string, Buffer>();
  const seen = new Set<string>();
  const visit = (c: Cell) => {
    const h = c.hash().toString('hex');
    if (seen.has(h)) return;
    seen.add(h);
    if (c.isExotic && c.bits.length === 8 + 256 && c.beginParse(true).loadUint(8) === LIBRARY_CELL) {
      const hash = c.beginParse(true).skip(8).loadBuffer(32);
      found.set(hash.toString('hex'), hash);
    }
    for (const r of c.refs) visit(r);
  };
  roots.forEach(visit);
  return [...found.values()];
}

/** The libs dictionary the executor takes. */
export function librariesDict(libraries: Cell[]): Cell | null {
  if (libraries.length === 0) return null;
  const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  for (const lib of libraries) dict.set(BigInt(`0x${lib.hash().toString('hex')}`), lib);
  return beginCell().storeDictDirect(dict).endCell();
}

/** The code loaded a library cell the run was not given (reached only at run time): fetch it and run again. */
export class MissingLibraryError extends Error {
  constructor(readonly hash: Buffer) {
    super(`the get-method needs library ${hash.toString('hex')}`);
    this.name = 'MissingLibraryError';
  }
}

export class LocalTvm {
  private executor: Promise<Executor> | null = null;

  private get(): Promise<Executor> {
    return (this.executor ??= Executor.create());
  }

  /** Starts compiling the TVM now, so that the first run does not wait for it. */
  warm(): void {
    void this.get().catch(() => {});
  }

  async runGetMethod(account: Account, methodId: number, stack: TupleItem[], ctx: TvmContext): Promise<GetMethodResult> {
    const state = account.storage.state;
    if (state.type !== 'active' || !state.state.code || !state.state.data) throw new Error(`account ${account.addr.toRawString()} has no code to run (${state.type})`);
    const res = await (await this.get()).runGetMethod({
      code: state.state.code, data: state.state.data, methodId, stack, config: ctx.config, libs: ctx.libs ?? undefined,
      verbosity: 'short', address: account.addr, unixTime: ctx.now, balance: account.storage.balance.coins,
      randomSeed: Buffer.alloc(32), gasLimit: GET_METHOD_GAS_LIMIT, debugEnabled: false,
    });
    if (!res.output.success) throw new Error(`get-method emulation failed: ${res.output.error}`);
    if (res.output.missing_library) throw new MissingLibraryError(Buffer.from(res.output.missing_library, 'hex'));
    const exitCode = res.output.vm_exit_code;
    // a failed run leaves no meaningful stack; exit codes 0 and 1 are both success in TVM
    const out = exitCode === 0 || exitCode === 1 ? parseTuple(Cell.fromBase64(res.output.stack)) : [];
    return { exitCode, stack: out, gasUsed: BigInt(res.output.gas_used) };
  }

  /** One transaction of `message` on the account (null: it does not exist yet); throws when no transaction results. */
  async runTransaction(address: Address, account: Account | null, last: { lt: bigint; hash: Buffer }, message: Cell, ctx: TvmContext): Promise<{ transaction: Cell; account: Account | null }> {
    const shardAccount = beginCell().store(storeShardAccount({
      account, lastTransactionLt: last.lt, lastTransactionHash: BigInt(`0x${last.hash.toString('hex') || '0'}`),
    })).endCell().toBoc().toString('base64');
    const res = await (await this.get()).runTransaction({
      config: ctx.config, libs: ctx.libs, verbosity: 'short', shardAccount, message, now: ctx.now, lt: ctx.lt,
      randomSeed: Buffer.alloc(32), ignoreChksig: false, debugEnabled: false,
    });
    if (!res.result.success) throw new Error(`${address.toRawString()} would not accept the message: ${res.result.error}`);
    const after = Cell.fromBase64(res.result.shardAccount).beginParse();
    const ref = after.loadRef().beginParse();
    return { transaction: Cell.fromBase64(res.result.transaction), account: ref.loadBit() ? loadAccount(ref) : null };
  }
}
