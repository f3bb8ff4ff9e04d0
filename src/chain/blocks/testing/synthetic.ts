// SyntheticChain: a masterchain and the basechain's shards made of real blocks (buildBlock), driven step by
// step — transfers or raw transactions into shards, splits, merges, gaps, key blocks — for the tests of the
// follower and of the fake liteserver. Every block links to its parents by prev_ref with their real hashes.
// Test tooling: testing/ is left out of the build.
import { createHash } from 'node:crypto';
import { Address, beginCell, type Cell } from '@ton/core';
import type { BlockId } from '../../model.js';
import type { ExtBlkRef } from '../../tlb/ext-blk-ref.js';
import { HashmapCache, storeHashmap } from '../../tlb/hashmap.js';
import { NO_SHARD_FEES } from '../../tlb/mc-block-extra.js';
import { buildOldMcBlocks, storeMcStateExtra, type KeyMaxLt, type OldMcBlock } from '../../tlb/mc-state-extra.js';
import type { ShardAccountEntry } from '../../tlb/shard-state.js';
import { buildBlock, MASTERCHAIN, type BuiltBlock } from '../build.js';
import { FULL_SHARD, parseShard, shardContains, shardHex, siblingShard } from '../shard.js';
import { chainFrom, shardTreeOf, splitAndMerge, type ShardChain as AnyShardChain } from '../shard-chain.js';
import { newAccount, sendTransaction, shardAccountEntry, transferTransaction, type SyntheticAccount, type Transfer } from './transfer.js';
import { zeroState, type ChainTop } from '../zero-state.js';

/** What a shard chain has queued for its next block. */
type Pending =
  | { kind: 'transfer'; transfer: Transfer }
  /** The sender's side of a transfer: its wallet sends the message, which is credited to `to` afterwards. */
  | { kind: 'send'; transfer: Transfer }
  | { kind: 'raw'; cell: Cell; account: ShardAccountEntry };

type ShardChain = AnyShardChain<Pending>;

export const BASECHAIN = 0;
/** Blocks start at multiples of this lt, leaving room as real collators do. */
export const LT_STEP = 1_000_000n;

export interface SyntheticChainOptions {
  globalId?: number;
  /** gen_utime of the zero state; each masterchain block adds `utimeStep`. */
  startUtime?: number;
  utimeStep?: number;
  /** ConfigParams dictionary root (`Hashmap 32 ^Cell`) for key blocks and the masterchain state. */
  config?: Cell;
}

export interface MasterchainStep {
  masterchain: BuiltBlock;
  /** Shard blocks this masterchain block commits, each chain's in seqno order. */
  shardBlocks: BuiltBlock[];
}

export interface NextMasterchainOptions {
  keyBlock?: boolean;
  /** A key block's new ConfigParams dictionary (e.g. a rotated validator set); kept for later blocks. */
  config?: Cell;
  /** Make a block in every shard even with nothing to put in it (default: only shards with transactions). */
  everyShard?: boolean;
}

export class SyntheticChain {
  readonly globalId: number;
  private config: Cell;
  private validators = { validatorListHashShort: 0, catchainSeqno: 0 };
  private readonly configAddress = Buffer.alloc(32, 0x55);
  private readonly utimeStep: number;
  private utime: number;
  private nextLt = LT_STEP;
  private readonly master: ShardChain;
  private shards: ShardChain[];
  private readonly mcBlocks: OldMcBlock[] = [];
  private readonly prevBlocksCache = new HashmapCache<KeyMaxLt>();
  private lastKeyBlock: ExtBlkRef | null = null;
  private lastKeySeqno = 0;
  private readonly synthetic = new Map<string, SyntheticAccount>();
  /** Shard blocks made since the last masterchain block. */
  private made: BuiltBlock[] = [];
  private readonly byRoot = new Map<string, BuiltBlock>();
  private readonly mcBySeqno: BuiltBlock[] = [];
  private readonly zero: { masterchain: ChainTop; basechain: ChainTop };

  constructor(options: SyntheticChainOptions = {}) {
    this.globalId = options.globalId ?? -217;
    this.utime = options.startUtime ?? 1_700_000_000;
    this.utimeStep = options.utimeStep ?? 1;
    this.config = options.config ?? defaultConfig(this.configAddress);
    const base = zeroState(this.globalId, BASECHAIN, FULL_SHARD, this.utime, null);
    this.shards = [chainFrom<Pending>(BASECHAIN, FULL_SHARD, base, new Map())];
    const mcZero = zeroState(this.globalId, MASTERCHAIN, FULL_SHARD, this.utime, this.stateExtra(0));
    this.master = chainFrom<Pending>(MASTERCHAIN, FULL_SHARD, mcZero, new Map());
    this.mcBlocks.push({ key: true, ref: mcZero.ref });
    this.zero = { masterchain: mcZero, basechain: base };
    this.lastKeyBlock = mcZero.ref;
  }

  /** The current shards of the basechain (ids as 16 hex digits). */
  get shardIds(): string[] {
    return this.shards.map((s) => shardHex(s.shard));
  }

  get masterchainSeqno(): number {
    return this.master.nextSeqno - 1;
  }

  /** A basechain address inside `shard` (deterministic per index). */
  addressIn(shard: string | bigint, index: number): Address {
    const id = parseShard(shard);
    const bits = BigInt(64 - (id & -id).toString(2).length);
    const random = BigInt(`0x${createHash('sha256').update(`tonwatch-synthetic:account:${shardHex(id)}:${index}`).digest('hex')}`);
    const prefix = bits === 0n ? 0n : (id >> (64n - bits)) << (256n - bits);
    const hash = prefix | (random & ((1n << (256n - bits)) - 1n));
    return new Address(BASECHAIN, Buffer.from(hash.toString(16).padStart(64, '0'), 'hex'));
  }

  /** Queues an incoming transfer to `to`; it lands in the next block of the receiver's shard. */
  transfer(transfer: Transfer): string {
    const chain = this.chainOf(transfer.to.workChain, addressBits(transfer.to));
    chain.pending.push({ kind: 'transfer', transfer });
    return shardHex(chain.shard);
  }

  /**
   * Queues an outgoing transfer: `from` (which must hold `amount`, e.g. from an earlier `transfer`) sends
   * it in its shard's next block, and `to` is credited in its shard's block after that (or the same
   * block when both share a shard). Gives accounts outgoing history (a wallet that has sent).
   */
  send(transfer: Transfer): string {
    const chain = this.chainOf(transfer.from.workChain, addressBits(transfer.from));
    chain.pending.push({ kind: 'send', transfer });
    return shardHex(chain.shard);
  }

  /** Queues a ready Transaction cell and its account's state afterwards (the devnet's path). */
  addTransaction(workchain: number, cell: Cell, account: ShardAccountEntry): string {
    const chain = this.chainOf(workchain, account.address);
    chain.pending.push({ kind: 'raw', cell, account });
    return shardHex(chain.shard);
  }

  /** The shard's next block (committed by the next masterchain block) is `before_split`; its halves follow. */
  split(shard: string | bigint): void {
    this.shardChain(parseShard(shard)).split = true;
  }

  /** The shard and its sibling make their last blocks at the next masterchain block, then merge. */
  merge(shard: string | bigint): void {
    const id = parseShard(shard);
    this.shardChain(id).merge = true;
    this.shardChain(siblingShard(id)).merge = true;
  }

  /** Makes a block in one shard now, from what is queued for it (several may precede a masterchain block). */
  shardBlock(shard: string | bigint): BuiltBlock {
    return this.make(this.shardChain(parseShard(shard)));
  }

  /** Makes the due shard blocks, then the masterchain block committing every shard's top. */
  nextMasterchainBlock(options: NextMasterchainOptions = {}): MasterchainStep {
    this.utime += this.utimeStep;
    for (const chain of this.shards) {
      if (chain.due || chain.split || chain.merge || chain.pending.length > 0 || options.everyShard) this.make(chain);
    }
    const seqno = this.master.nextSeqno;
    const keyBlock = options.keyBlock ?? false;
    if (options.config) {
      if (!keyBlock) throw new Error('only a key block changes the config');
      this.config = options.config;
    }
    const shardHashes = new Map([[BASECHAIN, shardTreeOf(this.shards, FULL_SHARD, seqno)]]);
    const built = this.make(this.master, {
      keyBlock,
      mcBlockExtra: {
        shardHashes, shardFees: NO_SHARD_FEES, prevBlkSignatures: null, recoverCreateMsg: null, mintMsg: null,
        config: keyBlock ? { configAddress: this.configAddress, config: this.config } : null,
      },
      mcStateExtra: this.stateExtra(seqno, shardHashes, keyBlock),
    });
    this.mcBlocks.push({ key: keyBlock, ref: built.ref });
    if (keyBlock) {
      this.lastKeyBlock = built.ref;
      this.lastKeySeqno = seqno;
    }
    const step = { masterchain: built, shardBlocks: this.made };
    this.made = [];
    // Credits of sends queued on chains already made this step move with their accounts through a split or merge.
    const carried = this.shards.flatMap((c) => c.pending.splice(0));
    this.shards = splitAndMerge(this.shards);
    for (const item of carried) {
      if (item.kind !== 'transfer') throw new Error(`unexpected ${item.kind} left after a step`);
      this.chainOf(item.transfer.to.workChain, addressBits(item.transfer.to)).pending.push(item);
    }
    return step;
  }

  /** The validator set named in the headers (and McStateExtra) of the blocks made from now on. */
  setValidators(validatorListHashShort: number, catchainSeqno: number): void {
    this.validators = { validatorListHashShort, catchainSeqno };
  }

  /** Any block made so far, by its root hash (hex). */
  block(rootHash: string): BuiltBlock | undefined {
    return this.byRoot.get(rootHash);
  }

  /** The masterchain block of this seqno (1 … masterchainSeqno). */
  masterchainBlock(seqno: number): BuiltBlock | undefined {
    return this.mcBySeqno[seqno];
  }

  /** The zero states: masterchain and basechain (the blocks of seqno 0 refer to them by ExtBlkRef). */
  zeroStates(): { masterchain: ChainTop; basechain: ChainTop } {
    return this.zero;
  }

  private make(chain: ShardChain, mc: Partial<Parameters<typeof buildBlock>[0]> = {}): BuiltBlock {
    const startLt = ((this.nextLt + LT_STEP) / LT_STEP) * LT_STEP; // above every lt made so far
    let lt = startLt;
    const transactions: Cell[] = [];
    for (const item of chain.pending) {
      lt += 2n; // the inbound message's created_lt sits just below
      if (item.kind === 'raw') {
        transactions.push(item.cell);
        chain.accounts.set(item.account.address, item.account);
        continue;
      }
      if (item.kind === 'send') {
        const key = item.transfer.from.toRawString();
        const sender = this.synthetic.get(key);
        if (!sender || sender.balance < item.transfer.amount) throw new Error(`synthetic send: ${key} holds ${sender?.balance ?? 0n}, less than ${item.transfer.amount}`);
        const made = sendTransaction(sender, item.transfer, lt, this.utime);
        this.synthetic.set(key, made.account);
        transactions.push(made.cell);
        chain.accounts.set(addressBits(made.account.address), shardAccountEntry(made.account));
        // The message is credited after it was sent: later in this block's loop, or in the receiver shard's next block.
        this.chainOf(item.transfer.to.workChain, addressBits(item.transfer.to)).pending.push({ kind: 'transfer', transfer: { ...item.transfer, sent: { createdLt: lt + 1n, createdAt: this.utime } } });
        continue;
      }
      const key = item.transfer.to.toRawString();
      const made = transferTransaction(this.synthetic.get(key) ?? newAccount(item.transfer.to), item.transfer, lt, this.utime);
      this.synthetic.set(key, made.account);
      transactions.push(made.cell);
      chain.accounts.set(addressBits(made.account.address), shardAccountEntry(made.account));
    }
    // Ready transactions bring their own lts: the block's range must hold them.
    let firstLt = startLt;
    for (const item of chain.pending) {
      if (item.kind !== 'raw') continue;
      const txLt = transactionLt(item.cell);
      if (txLt < firstLt) firstLt = txLt;
      if (txLt >= lt) lt = txLt + 1n;
    }
    const endLt = lt + 1n;
    this.nextLt = endLt;
    const isMaster = chain.workchain === MASTERCHAIN;
    const built = buildBlock({
      globalId: this.globalId,
      workchain: chain.workchain,
      shard: chain.shard,
      seqno: chain.nextSeqno,
      genUtime: this.utime,
      startLt: firstLt,
      endLt,
      prev: chain.prev,
      afterSplit: chain.afterSplit,
      beforeSplit: chain.split,
      wantSplit: chain.split,
      wantMerge: chain.merge,
      masterRef: isMaster ? null : this.master.top.ref,
      minRefMcSeqno: isMaster ? Math.max(0, chain.nextSeqno - 1) : this.master.top.ref.seqno,
      prevKeyBlockSeqno: this.lastKeySeqno,
      genValidatorListHashShort: this.validators.validatorListHashShort,
      genCatchainSeqno: this.validators.catchainSeqno,
      transactions,
      accounts: [...chain.accounts.values()],
      accountsCache: chain.accountsCache,
      prevState: chain.prevState,
      prevBalance: chain.prevBalance,
      ...mc,
    });
    chain.pending = [];
    chain.top = { ref: built.ref, state: built.state, balance: built.balance, startLt: firstLt, genUtime: this.utime, regMcSeqno: this.master.nextSeqno, minRefMcSeqno: built.info.minRefMcSeqno };
    chain.prev = { kind: 'prev_blk_info', prev: built.ref };
    chain.prevState = built.state;
    chain.prevBalance = built.balance;
    chain.nextSeqno += 1;
    chain.afterSplit = false;
    chain.due = false;
    if (!isMaster) this.made.push(built);
    else this.mcBySeqno[built.id.seqno] = built;
    this.byRoot.set(built.id.rootHash, built);
    return built;
  }

  private stateExtra(seqno: number, shardHashes = new Map([[BASECHAIN, shardTreeOf(this.shards, FULL_SHARD, seqno)]]), keyBlock = seqno === 0): Cell {
    return beginCell()
      .store(
        storeMcStateExtra({
          shardHashes,
          config: { configAddress: this.configAddress, config: this.config },
          flags: 0,
          validatorInfo: { ...this.validators, nxCcUpdated: false },
          prevBlocks: buildOldMcBlocks(this.mcBlocks, this.prevBlocksCache),
          afterKeyBlock: keyBlock,
          lastKeyBlock: this.lastKeyBlock,
          blockCreateStats: null,
          globalBalance: { coins: 0n, other: null },
        }),
      )
      .endCell();
  }

  private chainOf(workchain: number, address: bigint): ShardChain {
    if (workchain === MASTERCHAIN) return this.master;
    if (workchain !== BASECHAIN) throw new Error(`workchain ${workchain} is not in this chain`);
    const chain = this.shards.find((s) => shardContains(s.shard, address));
    if (!chain) throw new Error('no shard holds this address');
    return chain;
  }

  private shardChain(shard: bigint): ShardChain {
    const chain = this.shards.find((s) => s.shard === shard);
    if (!chain) throw new Error(`no current shard ${shardHex(shard)} (shards: ${this.shardIds.join(', ')})`);
    return chain;
  }

  /** Block id of every shard top as the last masterchain block lists it. */
  tops(): BlockId[] {
    return this.shards.map((s) => ({ workchain: BASECHAIN, shard: shardHex(s.shard), seqno: s.top.ref.seqno, rootHash: s.top.ref.rootHash.toString('hex'), fileHash: s.top.ref.fileHash.toString('hex') }));
  }
}

/** `transaction$0111 account_addr:bits256 lt:uint64 …` */
function transactionLt(cell: Cell): bigint {
  const s = cell.beginParse();
  s.skip(4 + 256);
  return s.loadUintBig(64);
}

function addressBits(address: Address): bigint {
  return BigInt(`0x${address.hash.toString('hex')}`);
}

/** A minimal ConfigParams dictionary: param 0, the config contract's address. */
function defaultConfig(configAddress: Buffer): Cell {
  const b = beginCell();
  storeHashmap(b, [{ key: 0n, value: beginCell().storeBuffer(configAddress).endCell() }], 32, { storeValue: (v, vb) => void vb.storeRef(v) });
  return b.endCell();
}
