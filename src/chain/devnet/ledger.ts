// The devnet's blocks as real TON blocks: per tick a basechain shard block and the masterchain block that
// commits it, built by the one block builder (chain/blocks) from the emulator's Transaction cells and the
// accounts they leave. The ledger keeps what the next blocks link to — each chain's top block, its state
// (ShardStateUnsplit with the accounts in a ShardAccounts dictionary whose unchanged subtrees are reused),
// the masterchain's list of earlier blocks — and the validators that sign. A restart rebuilds the tops from
// the stored accounts and blocks and checks them against the stored blocks' state hashes.
import { beginCell, Cell } from '@ton/core';
import { LRUCache } from 'lru-cache';
import { buildBlock, blockState, extBlkRef, type BuiltBlock } from '../blocks/build.js';
import { FULL_SHARD as FULL_SHARD_ID } from '../blocks/shard.js';
import { chainFrom, shardTreeOf } from '../blocks/shard-chain.js';
import { zeroState, type ChainTop } from '../blocks/zero-state.js';
import type { SignatureSet } from '../liteserver/tl/lite-types.js';
import type { AccountId } from '../model.js';
import { loadBlock, type Block } from '../tlb/block.js';
import type { ExtBlkRef } from '../tlb/ext-blk-ref.js';
import { HashmapCache, sortByKey } from '../tlb/hashmap.js';
import { NO_SHARD_FEES } from '../tlb/mc-block-extra.js';
import { buildOldMcBlocks, storeMcStateExtra, type KeyMaxLt, type OldMcBlock } from '../tlb/mc-state-extra.js';
import type { ShardHashes } from '../tlb/shard-descr.js';
import { shardAccountEntryOf, type DepthBalance, type ShardAccountEntry } from '../tlb/shard-state.js';
import { DEVNET_CONFIG_ADDRESS, DevnetValidators, rotated, type ValidatorEpoch } from './validators.js';

/** The devnet's global id (a local network: no public network uses it). */
export const DEVNET_GLOBAL_ID = -239_001;
const MASTERCHAIN = -1;
const BASECHAIN = 0;
/** States kept in memory for the newest blocks (a liteserver's proofs start from them; cells are shared). */
export const RECENT_STATES = 32;

/** One chain's side of a tick: what the producer ran in it. */
export interface TickChain {
  seqno: number;
  startLt: bigint;
  endLt: bigint;
  transactions: Cell[];
}

export interface LedgerTick {
  utime: number;
  shard: TickChain;
  masterchain: TickChain;
  /** Accounts this tick changed (ShardAccount BoCs, base64). */
  changes: Iterable<[AccountId, string]>;
  /** Make the masterchain block a key block naming the next validator set (block 1 is a key block anyway). */
  rotate: boolean;
}

export interface SealedTick {
  shard: BuiltBlock;
  masterchain: BuiltBlock;
  /** The validators' signatures of the masterchain block. */
  signatures: SignatureSet;
  keyBlock: boolean;
  /** The validator epoch after this tick (a rotation's new set). */
  epoch: ValidatorEpoch;
  /** Makes this tick the ledger's head; call once its storage write succeeded. */
  commit(): void;
}

/** A zero state as the storage keeps it. */
export interface StoredZeroState {
  workchain: number;
  rootHash: string;
  fileHash: string;
  boc: Buffer;
}

/** What a restart rebuilds the ledger from. */
export interface LedgerRecord {
  accounts: Iterable<[AccountId, string]>;
  epoch: ValidatorEpoch;
  zeroStates: StoredZeroState[];
  /** BoCs of the newest masterchain block and of the shard block it commits. */
  masterchainHead: Buffer;
  shardHead: Buffer;
  /** Every masterchain block before the head (seqno ≥ 1), oldest first. */
  earlierMasterchain: Array<{ seqno: number; endLt: bigint; rootHash: string; fileHash: string; keyBlock: boolean }>;
}

/** One chain's side of the ledger: its accounts (one entry object per account, replaced when it changes) and top. */
class Workchain {
  /** The accounts sorted by address, as the dictionary takes them (sorting a sorted list is linear). */
  private sorted: ShardAccountEntry[];

  constructor(
    readonly workchain: number,
    readonly accounts: Map<bigint, ShardAccountEntry>,
    public top: ChainTop,
    /** The ShardAccounts subtrees of earlier builds, reused for the accounts a block did not change. */
    readonly cache = new HashmapCache<DepthBalance>(),
  ) {
    this.sorted = sortByKey([...accounts.values()].map((e) => ({ key: e.address, e }))).map((k) => k.e);
  }

  /** The accounts after `changes` (null: the account left the state), sorted; unchanged entries stay the same objects. */
  after(changes: Map<bigint, ShardAccountEntry | null>): ShardAccountEntry[] {
    if (changes.size === 0) return this.sorted;
    const out = this.sorted.slice();
    let added = false;
    let removed = false;
    for (const [address, entry] of changes) {
      // searched in the sorted list: `out` gains unsorted new accounts at its end (and holes) as this goes
      const at = indexOf(this.sorted, address);
      if (at >= 0) {
        if (entry) out[at] = entry;
        else (out[at] = undefined as unknown as ShardAccountEntry), (removed = true);
      } else if (entry) {
        out.push(entry);
        added = true;
      }
    }
    const kept = removed ? out.filter((e) => e !== undefined) : out;
    return added ? kept.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)) : kept;
  }

  /** Makes `after(changes)` (its result passed back) the chain's accounts. */
  apply(changes: Map<bigint, ShardAccountEntry | null>, sorted: ShardAccountEntry[]): void {
    for (const [address, entry] of changes) {
      if (entry) this.accounts.set(address, entry);
      else this.accounts.delete(address);
    }
    this.sorted = sorted;
  }
}

/** Position of `address` in entries sorted by address, or -1. */
function indexOf(sorted: ShardAccountEntry[], address: bigint): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const a = sorted[mid]!.address;
    if (a === address) return mid;
    if (a < address) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function accountKey(id: AccountId): { workchain: number; address: bigint } {
  const at = id.indexOf(':');
  return { workchain: Number(id.slice(0, at)), address: BigInt(`0x${id.slice(at + 1)}`) };
}

/** `account_none$0` is not kept in ShardAccounts: an address that never got an account is not in the state. */
function isNone(entry: ShardAccountEntry): boolean {
  return entry.account.bits.length === 1 && entry.account.refs.length === 0 && !entry.account.beginParse().preloadBit();
}

/** Account entries by workchain; null for an account that is `account_none` (not kept in ShardAccounts). */
function changesByWorkchain(accounts: Iterable<[AccountId, string]>): Map<number, Map<bigint, ShardAccountEntry | null>> {
  const out = new Map<number, Map<bigint, ShardAccountEntry | null>>([[MASTERCHAIN, new Map()], [BASECHAIN, new Map()]]);
  for (const [id, shardAccount] of accounts) {
    const key = accountKey(id);
    const map = out.get(key.workchain);
    if (!map) throw new Error(`account ${id} is in workchain ${key.workchain}; the devnet has -1 and 0`);
    const entry = shardAccountEntryOf(key.address, Cell.fromBase64(shardAccount));
    map.set(key.address, isNone(entry) ? null : entry);
  }
  return out;
}

function splitByWorkchain(accounts: Iterable<[AccountId, string]>): Map<number, Map<bigint, ShardAccountEntry>> {
  const out = new Map<number, Map<bigint, ShardAccountEntry>>();
  for (const [workchain, entries] of changesByWorkchain(accounts)) {
    out.set(workchain, new Map([...entries].filter((e): e is [bigint, ShardAccountEntry] => e[1] !== null)));
  }
  return out;
}

function refOf(seqno: number, endLt: bigint, rootHash: string, fileHash: string): ExtBlkRef {
  return { seqno, endLt, rootHash: Buffer.from(rootHash, 'hex'), fileHash: Buffer.from(fileHash, 'hex') };
}

/** The new-state hash a block's state_update ends at. */
function newStateHash(block: Block): Buffer {
  return block.stateUpdate.beginParse(true).skip(8 + 256).loadBuffer(32);
}

export class DevnetLedger {
  private validators: DevnetValidators;
  /** The state after each of the newest blocks, by the block's root hash (hex); the oldest remembered leaves first. */
  private readonly recentStates = new LRUCache<string, Cell>({ max: RECENT_STATES });

  private constructor(
    private readonly master: Workchain,
    private readonly base: Workchain,
    readonly zeroStates: StoredZeroState[],
    /** Every masterchain block so far, the zero state first (the state's OldMcBlocksInfo). */
    private readonly mcBlocks: OldMcBlock[],
    private lastKey: { seqno: number; ref: ExtBlkRef },
    epoch: ValidatorEpoch,
    private readonly prevBlocksCache = new HashmapCache<KeyMaxLt>(),
  ) {
    this.validators = new DevnetValidators(epoch);
    this.remember(master.top);
    this.remember(base.top);
  }

  private remember(top: ChainTop): void {
    this.recentStates.set(top.ref.rootHash.toString('hex'), top.state);
  }

  /** The state after a recent block (or a zero state), by its root hash (hex); null when no longer kept. */
  stateAfter(rootHash: string): Cell | null {
    return this.recentStates.peek(rootHash.toLowerCase()) ?? null;
  }

  /** The zero states of both chains from the accounts that exist before block 1. */
  static genesis(accounts: Iterable<[AccountId, string]>, utime: number, epoch: ValidatorEpoch): DevnetLedger {
    const byChain = splitByWorkchain(accounts);
    const baseAccounts = byChain.get(BASECHAIN)!;
    const masterAccounts = byChain.get(MASTERCHAIN)!;
    const baseZero = zeroState(DEVNET_GLOBAL_ID, BASECHAIN, FULL_SHARD_ID, utime, null, [...baseAccounts.values()]);
    const validators = new DevnetValidators(epoch);
    const shardHashes: ShardHashes = new Map([[BASECHAIN, shardTreeOf([chainFrom(BASECHAIN, FULL_SHARD_ID, baseZero, new Map())], FULL_SHARD_ID, 0)]]);
    const extra = mcStateExtra({ shardHashes, validators, prevBlocks: buildOldMcBlocks([]), afterKeyBlock: true, lastKeyBlock: null });
    const mcZero = zeroState(DEVNET_GLOBAL_ID, MASTERCHAIN, FULL_SHARD_ID, utime, extra, [...masterAccounts.values()]);
    const zeroStates = [mcZero, baseZero].map((z, i) => ({
      workchain: i === 0 ? MASTERCHAIN : BASECHAIN,
      rootHash: z.ref.rootHash.toString('hex'),
      fileHash: z.ref.fileHash.toString('hex'),
      boc: z.state.toBoc({ idx: false, crc32: true }),
    }));
    return new DevnetLedger(
      new Workchain(MASTERCHAIN, masterAccounts, mcZero),
      new Workchain(BASECHAIN, baseAccounts, baseZero),
      zeroStates,
      [{ key: true, ref: mcZero.ref }],
      { seqno: 0, ref: mcZero.ref },
      epoch,
    );
  }

  /** The ledger after the stored head, its states rebuilt and checked against the stored blocks. */
  static restore(record: LedgerRecord): DevnetLedger {
    const byChain = splitByWorkchain(record.accounts);
    const zero = new Map(record.zeroStates.map((z) => [z.workchain, z]));
    const mcZero = zero.get(MASTERCHAIN);
    if (!mcZero || !zero.has(BASECHAIN)) throw new Error('the devnet storage lacks its zero states');
    const mcRoot = Cell.fromBoc(record.masterchainHead)[0]!;
    const shardRoot = Cell.fromBoc(record.shardHead)[0]!;
    const mcBlock = loadBlock(mcRoot.beginParse());
    const shardBlock = loadBlock(shardRoot.beginParse());
    const mcRef = extBlkRef(mcBlock.info.endLt, mcBlock.info.seqno, mcRoot, record.masterchainHead);
    const shardRef = extBlkRef(shardBlock.info.endLt, shardBlock.info.seqno, shardRoot, record.shardHead);

    const mcBlocks: OldMcBlock[] = [
      { key: true, ref: refOf(0, 0n, mcZero.rootHash, mcZero.fileHash) },
      ...record.earlierMasterchain.map((b) => ({ key: b.keyBlock, ref: refOf(b.seqno, b.endLt, b.rootHash, b.fileHash) })),
    ];
    const lastKeyBefore = [...mcBlocks].reverse().find((b) => b.key)!;
    const validators = new DevnetValidators(record.epoch);

    const baseAccounts = byChain.get(BASECHAIN)!;
    const baseCache = new HashmapCache<DepthBalance>();
    const baseState = blockState({
      globalId: DEVNET_GLOBAL_ID, workchain: BASECHAIN, shard: FULL_SHARD_ID, seqno: shardBlock.info.seqno,
      genUtime: shardBlock.info.genUtime, endLt: shardBlock.info.endLt, minRefMcSeqno: shardBlock.info.minRefMcSeqno,
      masterRef: shardBlock.info.masterRef, accounts: [...baseAccounts.values()], accountsCache: baseCache,
    });
    const base = new Workchain(BASECHAIN, baseAccounts, {
      ref: shardRef, state: baseState.state, balance: baseState.balance, startLt: shardBlock.info.startLt,
      genUtime: shardBlock.info.genUtime, regMcSeqno: mcBlock.info.seqno, minRefMcSeqno: shardBlock.info.minRefMcSeqno,
    }, baseCache);

    const masterAccounts = byChain.get(MASTERCHAIN)!;
    const masterCache = new HashmapCache<DepthBalance>();
    const prevBlocksCache = new HashmapCache<KeyMaxLt>();
    const extra = mcStateExtra({
      shardHashes: mcBlock.extra.custom!.shardHashes,
      validators,
      prevBlocks: buildOldMcBlocks(mcBlocks, prevBlocksCache),
      afterKeyBlock: mcBlock.info.keyBlock,
      lastKeyBlock: lastKeyBefore.ref,
    });
    const mcState = blockState({
      globalId: DEVNET_GLOBAL_ID, workchain: MASTERCHAIN, shard: FULL_SHARD_ID, seqno: mcBlock.info.seqno,
      genUtime: mcBlock.info.genUtime, endLt: mcBlock.info.endLt, minRefMcSeqno: mcBlock.info.minRefMcSeqno,
      masterRef: null, accounts: [...masterAccounts.values()], accountsCache: masterCache, mcStateExtra: extra,
    });
    const master = new Workchain(MASTERCHAIN, masterAccounts, {
      ref: mcRef, state: mcState.state, balance: mcState.balance, startLt: mcBlock.info.startLt,
      genUtime: mcBlock.info.genUtime, regMcSeqno: mcBlock.info.seqno, minRefMcSeqno: mcBlock.info.minRefMcSeqno,
    }, masterCache);

    for (const [name, block, state] of [['masterchain', mcBlock, mcState.state], ['shard', shardBlock, baseState.state]] as const) {
      if (!newStateHash(block).equals(state.hash())) {
        throw new Error(`the devnet's ${name} state rebuilt from its storage does not match block ${block.info.seqno} (storage damaged or written by another version)`);
      }
    }
    mcBlocks.push({ key: mcBlock.info.keyBlock, ref: mcRef });
    const lastKey = mcBlock.info.keyBlock ? { seqno: mcBlock.info.seqno, ref: mcRef } : { seqno: lastKeyBefore.ref.seqno, ref: lastKeyBefore.ref };
    return new DevnetLedger(master, base, record.zeroStates, mcBlocks, lastKey, record.epoch, prevBlocksCache);
  }

  get epoch(): ValidatorEpoch {
    return this.validators.epoch;
  }

  /** The current validators (the set that signs the next masterchain block). */
  get signingValidators(): DevnetValidators {
    return this.validators;
  }

  /** The newest state of a chain (the root a proof of an account starts from). */
  headState(workchain: number): Cell {
    return (workchain === MASTERCHAIN ? this.master : this.base).top.state;
  }

  /** Builds the tick's shard block and the masterchain block committing it; the ledger moves on commit(). */
  seal(tick: LedgerTick): SealedTick {
    const changes = changesByWorkchain(tick.changes);
    const base = this.base.after(changes.get(BASECHAIN)!);
    const master = this.master.after(changes.get(MASTERCHAIN)!);
    const mcTop = this.master.top;

    const shard = buildBlock({
      globalId: DEVNET_GLOBAL_ID, workchain: BASECHAIN, shard: FULL_SHARD_ID, seqno: tick.shard.seqno, genUtime: tick.utime,
      startLt: tick.shard.startLt, endLt: tick.shard.endLt, prev: { kind: 'prev_blk_info', prev: this.base.top.ref },
      masterRef: mcTop.ref, minRefMcSeqno: mcTop.ref.seqno, prevKeyBlockSeqno: this.lastKey.seqno,
      genValidatorListHashShort: this.validators.setHash, genCatchainSeqno: this.validators.epoch.ccSeqno,
      transactions: tick.shard.transactions, accounts: base, accountsCache: this.base.cache,
      prevState: this.base.top.state, prevBalance: this.base.top.balance,
    });
    const shardTop: ChainTop = {
      ref: shard.ref, state: shard.state, balance: shard.balance, startLt: tick.shard.startLt, genUtime: tick.utime,
      regMcSeqno: tick.masterchain.seqno, minRefMcSeqno: mcTop.ref.seqno,
    };

    // The first block after the zero state is a key block too: a client's init_block must be a Block (a
    // zero state is none), so the chain has one from the start (an older data dir gets it at its next block).
    const keyBlock = tick.rotate || this.lastKey.seqno === 0;
    const signing = this.validators;
    const next = tick.rotate ? new DevnetValidators(rotated(signing.epoch)) : signing;
    const shardHashes: ShardHashes = new Map([[BASECHAIN, shardTreeOf([chainFrom(BASECHAIN, FULL_SHARD_ID, shardTop, new Map())], FULL_SHARD_ID, tick.masterchain.seqno)]]);
    const extra = mcStateExtra({
      shardHashes, validators: next, prevBlocks: buildOldMcBlocks(this.mcBlocks, this.prevBlocksCache),
      afterKeyBlock: keyBlock, lastKeyBlock: this.lastKey.ref,
    });
    const masterchain = buildBlock({
      globalId: DEVNET_GLOBAL_ID, workchain: MASTERCHAIN, shard: FULL_SHARD_ID, seqno: tick.masterchain.seqno, genUtime: tick.utime,
      startLt: tick.masterchain.startLt, endLt: tick.masterchain.endLt, prev: { kind: 'prev_blk_info', prev: mcTop.ref },
      keyBlock, masterRef: null, minRefMcSeqno: Math.max(0, tick.masterchain.seqno - 1), prevKeyBlockSeqno: this.lastKey.seqno,
      genValidatorListHashShort: signing.setHash, genCatchainSeqno: signing.epoch.ccSeqno,
      transactions: tick.masterchain.transactions, accounts: master, accountsCache: this.master.cache,
      prevState: mcTop.state, prevBalance: mcTop.balance,
      mcBlockExtra: {
        shardHashes, shardFees: NO_SHARD_FEES, prevBlkSignatures: null, recoverCreateMsg: null, mintMsg: null,
        config: keyBlock ? { configAddress: DEVNET_CONFIG_ADDRESS, config: next.config() } : null,
      },
      mcStateExtra: extra,
    });
    const signatures = signing.sign({
      workchain: MASTERCHAIN, shard: BigInt.asIntN(64, FULL_SHARD_ID), seqno: masterchain.id.seqno,
      rootHash: masterchain.ref.rootHash, fileHash: masterchain.ref.fileHash,
    });
    const mcNewTop: ChainTop = {
      ref: masterchain.ref, state: masterchain.state, balance: masterchain.balance, startLt: tick.masterchain.startLt,
      genUtime: tick.utime, regMcSeqno: tick.masterchain.seqno, minRefMcSeqno: masterchain.info.minRefMcSeqno,
    };
    let committed = false;
    return {
      shard, masterchain, signatures, keyBlock, epoch: next.epoch,
      commit: () => {
        if (committed) return;
        committed = true;
        this.base.apply(changes.get(BASECHAIN)!, base);
        this.master.apply(changes.get(MASTERCHAIN)!, master);
        this.base.top = shardTop;
        this.master.top = mcNewTop;
        this.remember(shardTop);
        this.remember(mcNewTop);
        this.mcBlocks.push({ key: keyBlock, ref: masterchain.ref });
        if (keyBlock) this.lastKey = { seqno: tick.masterchain.seqno, ref: masterchain.ref };
        this.validators = next;
      },
    };
  }
}

function mcStateExtra(args: {
  shardHashes: ShardHashes;
  validators: DevnetValidators;
  prevBlocks: ReturnType<typeof buildOldMcBlocks>;
  afterKeyBlock: boolean;
  lastKeyBlock: ExtBlkRef | null;
}): Cell {
  return beginCell()
    .store(
      storeMcStateExtra({
        shardHashes: args.shardHashes,
        config: { configAddress: DEVNET_CONFIG_ADDRESS, config: args.validators.config() },
        flags: 0,
        validatorInfo: { validatorListHashShort: args.validators.setHash, catchainSeqno: args.validators.epoch.ccSeqno, nxCcUpdated: false },
        prevBlocks: args.prevBlocks,
        afterKeyBlock: args.afterKeyBlock,
        lastKeyBlock: args.lastKeyBlock,
        blockCreateStats: null,
        globalBalance: { coins: 0n, other: null },
      }),
    )
    .endCell();
}
