// A fake liteserver over a SyntheticChain: real blocks, and proofs built as the node builds them (the
// trust/ checks are the oracle). It answers as an AdnlServer's LiteServerHandler, and can be told to lie:
// serve a forged block, tamper with a proof, or withhold its head.
import { beginCell, convertToMerkleProof, type Cell } from '@ton/core';
import type { BuiltBlock } from '../../blocks/build.js';
import { shardHex } from '../../blocks/shard.js';
import type { SyntheticChain } from '../../blocks/synthetic.js';
import { readTransactionCells } from '../../decode/block.js';
import { CellReader } from '../../decode/reader.js';
import { readCurrencyCollection } from '../../decode/message.js';
import { readShardDescr, readShardHashes } from '../../decode/shard-hashes.js';
import { LiteErrorCode, LiteServerError } from '../tl/envelope.js';
import type { AccountId, BlockIdExt, LiteMethodName } from '../tl/lite-api.js';
import type { LiteServerHandler, LiteServerMethods } from '../transport/adnl-server.js';
import { MasterchainHead } from '../transport/adnl-server.js';
import { accountPosition } from '../trust/shards.js';
import { hashmapPath, multiRootBoc, ProofBuilder, shardTreePath } from './proof-builder.js';
import { serveBackwardProof } from './serve-block-proof.js';
import { serveConfig } from './serve-config.js';
import { serveLibraries } from './serve-libraries.js';
import type { ServedChain } from './served.js';

const refuse = (why: string): never => {
  throw new LiteServerError(LiteErrorCode.error, why);
};

/** Ways the server can lie; each is asked per reply. */
export interface LyingModes {
  /** Serve another block's bytes (a forged block: one bit of its header flipped) for this block. */
  forgeBlock?: (id: BlockIdExt) => boolean;
  /** Flip one bit of a pruned hash in this method's proofs (the proof stays a valid BoC). */
  tamperProof?: (method: LiteMethodName) => boolean;
  /** Never report or serve masterchain blocks above this seqno. */
  withholdAbove?: number;
  /** Claim the head, yet answer 651 ("not in db") for this block. */
  withholdBlock?: (id: { workchain: number; shard: bigint; seqno: number }) => boolean;
}

export interface SyntheticLiteServerOptions {
  /** Served head; default the chain's newest masterchain block. Move it with `advance`. */
  head?: number;
  lie?: LyingModes;
  /** Library cells getLibraries serves. */
  libraries?: Cell[];
}

interface Indexed {
  built: BuiltBlock;
  /** The masterchain block that commits it (its own seqno for a masterchain block). */
  mcSeqno: number;
}

interface IndexedTransaction {
  lt: bigint;
  hash: string;
  cell: Cell;
  block: BlockIdExt;
}

/** A TL block id of a built block. */
export function tlBlockId(b: BuiltBlock): BlockIdExt {
  return {
    workchain: b.id.workchain,
    shard: BigInt.asIntN(64, BigInt(`0x${b.id.shard}`)),
    seqno: b.id.seqno,
    rootHash: Buffer.from(b.id.rootHash, 'hex'),
    fileHash: Buffer.from(b.id.fileHash, 'hex'),
  };
}

const blockKey = (workchain: number, shard: bigint | string, seqno: number): string =>
  `${workchain}:${typeof shard === 'string' ? shard : shardHex(BigInt.asUintN(64, shard))}:${seqno}`;

export class SyntheticLiteServer implements LiteServerHandler {
  readonly head: MasterchainHead;
  /** Bodies of sendMessage queries, in order. */
  readonly sent: Buffer[] = [];
  /** Method names of the queries answered (or refused), in order. */
  readonly calls: LiteMethodName[] = [];
  readonly methods: LiteServerMethods;
  private readonly byKey = new Map<string, Indexed>();
  private readonly served: ServedChain = { exact: (id) => this.exact(id).built, proofBoc: (m, roots) => this.proofBoc(m, roots) };
  private readonly transactions = new Map<string, IndexedTransaction[]>();
  private indexed = 0;

  constructor(
    readonly chain: SyntheticChain,
    private readonly options: SyntheticLiteServerOptions = {},
  ) {
    this.head = new MasterchainHead(this.cap(options.head ?? chain.masterchainSeqno));
    const methods: LiteServerMethods = {
      getMasterchainInfo: () => this.masterchainInfo(),
      getMasterchainInfoExt: ({ mode }) => {
        const info = this.masterchainInfo();
        const top = this.mcBlock(this.head.seqno);
        return { ...info, mode, version: 0x101, capabilities: 7n, lastUtime: top.info.genUtime, now: Math.floor(Date.now() / 1000) };
      },
      getTime: () => ({ now: Math.floor(Date.now() / 1000) }),
      getVersion: () => ({ mode: 0, version: 0x101, capabilities: 7n, now: Math.floor(Date.now() / 1000) }),
      lookupBlock: ({ mode, id }) => {
        if (!(mode & 1)) throw new LiteServerError(LiteErrorCode.error, 'only lookups by seqno are served');
        const b = this.find(id.workchain, id.shard, id.seqno);
        return { id: tlBlockId(b.built), mode: 0, headerProof: this.headerProof(b.built) };
      },
      getBlockHeader: ({ id, mode }) => ({ id, mode, headerProof: this.headerProof(this.exact(id).built) }),
      getBlock: ({ id }) => ({ id, data: this.blockData(this.exact(id).built) }),
      getAllShardsInfo: ({ id }) => this.allShardsInfo(this.exact(id).built),
      getShardInfo: ({ id, workchain, shard, exact }) => {
        const mc = this.exact(id).built;
        const position = BigInt.asUintN(64, shard);
        const found = this.shardProof(mc, workchain, position);
        if (exact && found.shard !== position) throw new LiteServerError(LiteErrorCode.error, `shard ${shardHex(position)} is not a shard now`);
        return { id, shardblk: found.shardblk, shardProof: found.proof, shardDescr: found.leaf.toBoc() };
      },
      getAccountState: ({ id, account }) => this.accountState(this.exact(id).built, account),
      getTransactions: ({ count, account, lt, hash }) => this.history(account, lt, hash, count),
      getBlockProof: (req) => serveBackwardProof(this.served, req) ?? refuse('only backward block proofs are served'),
      getConfigAll: (req) => serveConfig(this.served, req),
      getConfigParams: (req) => serveConfig(this.served, req),
      getLibraries: (req) => serveLibraries(this.options.libraries ?? [], req),
      sendMessage: ({ body }) => {
        this.sent.push(body);
        return { status: 1 };
      },
    };
    // Count every call, refuse what lies above the head.
    this.methods = {};
    for (const [name, fn] of Object.entries(methods)) {
      (this.methods as Record<string, unknown>)[name] = (req: unknown) => {
        this.calls.push(name as LiteMethodName);
        return (fn as (r: unknown) => unknown)(req);
      };
    }
  }

  /** Serves masterchain blocks up to `seqno` (capped by the chain and `withholdAbove`). */
  advance(seqno = this.chain.masterchainSeqno): void {
    this.head.advance(this.cap(seqno));
  }

  waitMasterchainSeqno(seqno: number, timeoutMs: number): Promise<void> {
    return this.head.wait(seqno, timeoutMs);
  }

  private cap(seqno: number): number {
    return Math.min(seqno, this.chain.masterchainSeqno, this.options.lie?.withholdAbove ?? Infinity);
  }

  private masterchainInfo() {
    const top = this.mcBlock(this.head.seqno);
    const zero = this.chain.zeroStates().masterchain.ref;
    return { last: tlBlockId(top), stateRootHash: top.state.hash(), init: { workchain: -1, rootHash: zero.rootHash, fileHash: zero.fileHash } };
  }

  private mcBlock(seqno: number): BuiltBlock {
    const b = this.chain.masterchainBlock(seqno);
    if (!b) throw new LiteServerError(LiteErrorCode.notReady, `masterchain block ${seqno} is not in db`);
    return b;
  }

  /** Indexes every block the chain's masterchain blocks up to `seqno` commit, and their transactions. */
  private indexTo(seqno: number): void {
    for (; this.indexed < seqno; ) {
      const s = ++this.indexed;
      const mc = this.mcBlock(s);
      this.add(mc, s);
      const extra = mc.root.refs[3]!.refs[3]!;
      for (const top of readShardHashes(new CellReader(extra))) {
        if (top.regMcSeqno !== s) continue;
        // Back through prev_ref until a block committed earlier.
        const queue = [this.chain.block(top.rootHash)];
        while (queue.length > 0) {
          const b = queue.pop();
          if (!b || this.byKey.has(blockKey(b.id.workchain, b.id.shard, b.id.seqno))) continue;
          this.add(b, s);
          const prev = b.info.prevRef;
          const parents = prev.kind === 'prev_blk_info' ? [prev.prev] : [prev.prev1, prev.prev2];
          for (const p of parents) queue.push(this.chain.block(p.rootHash.toString('hex')));
        }
      }
    }
  }

  private add(built: BuiltBlock, mcSeqno: number): void {
    this.byKey.set(blockKey(built.id.workchain, built.id.shard, built.id.seqno), { built, mcSeqno });
    for (const cell of readTransactionCells(built.root.refs[3]!.refs[2]!)) {
      const r = new CellReader(cell);
      r.skip(4);
      const account = `${built.id.workchain}:${r.hex(256)}`;
      const list = this.transactions.get(account) ?? [];
      list.push({ lt: r.bigUint(64), hash: cell.hash().toString('hex'), cell, block: tlBlockId(built) });
      list.sort((a, b) => (a.lt > b.lt ? -1 : 1)); // newest first
      this.transactions.set(account, list);
    }
  }

  /** A block the served head commits; 651 otherwise, as a node without it answers. */
  private find(workchain: number, shard: bigint | string, seqno: number): Indexed {
    this.indexTo(this.head.seqno);
    const b = this.byKey.get(blockKey(workchain, shard, seqno));
    const tlShard = typeof shard === 'bigint' ? shard : BigInt.asIntN(64, BigInt(`0x${shard}`));
    const withheld = this.options.lie?.withholdBlock?.({ workchain, shard: tlShard, seqno }) ?? false;
    if (!b || b.mcSeqno > this.head.seqno || withheld) throw new LiteServerError(LiteErrorCode.notReady, `block (${blockKey(workchain, shard, seqno)}) is not in db`);
    return b;
  }

  /** The block `id` names, hashes included. */
  private exact(id: BlockIdExt): Indexed {
    const b = this.find(id.workchain, id.shard, id.seqno);
    if (!tlBlockId(b.built).rootHash.equals(id.rootHash)) throw new LiteServerError(LiteErrorCode.notReady, 'block with this root hash is not in db');
    return b;
  }

  private blockData(b: BuiltBlock): Buffer {
    if (!this.options.lie?.forgeBlock?.(tlBlockId(b))) return b.boc;
    // The same block with one bit of its header flipped: a well-formed BoC of a block that was never made.
    const info = b.root.refs[0]!;
    const bits = info.bits;
    const i = 32 + 8; // in the flags after the tag
    const flipped = beginCell();
    for (let k = 0; k < bits.length; k++) flipped.storeBit(k === i ? !bits.at(k) : bits.at(k));
    for (const r of info.refs) flipped.storeRef(r);
    const root = beginCell().storeBits(b.root.bits);
    b.root.refs.forEach((r, k) => root.storeRef(k === 0 ? flipped.endCell() : r));
    return root.endCell().toBoc({ idx: false, crc32: true });
  }

  /** Proof of the header: the Block root and its BlockInfo subtree. */
  private headerProof(b: BuiltBlock): Buffer {
    return this.proofBoc('getBlockHeader', [new ProofBuilder().showWhole(b.root.refs[0]!).proof(b.root)]);
  }

  /** A block proof reaching its state_update (the MERKLE_UPDATE, kept whole: it is exotic). */
  private blockToState(b: BuiltBlock): Cell {
    return new ProofBuilder().showWhole(b.root.refs[0]!, b.root.refs[2]!).proof(b.root);
  }

  private allShardsInfo(mc: BuiltBlock) {
    const extra = mc.root.refs[3]!;
    const mcExtra = extra.refs[3]!;
    const r = new CellReader(mcExtra);
    r.skip(17); // tag, key_block
    const shardHashes = r.maybeRef();
    const proof = this.proofBoc('getAllShardsInfo', [new ProofBuilder().show(extra, mcExtra).proof(mc.root)]);
    const data = beginCell().storeMaybeRef(shardHashes).endCell().toBoc();
    return { id: tlBlockId(mc), proof, data };
  }

  /**
   * The shard block of `workchain` holding `position` that masterchain block `mc` lists, and the proof of it:
   * the block proof to its state_update, the state proof down McStateExtra.shard_hashes to the descriptor.
   */
  private shardProof(mc: BuiltBlock, workchain: number, position: bigint) {
    const state = mc.state;
    const custom = state.refs[3]!;
    const shardHashes = custom.refs[0]!;
    const dict = hashmapPath(shardHashes, 32, BigInt.asUintN(32, BigInt(workchain)));
    if (!dict.value) throw new LiteServerError(LiteErrorCode.error, `workchain ${workchain} is not in the masterchain state`);
    const tree = shardTreePath(dict.value.ref(), position);
    const stateProof = new ProofBuilder().show(custom, ...dict.cells, ...tree.cells).showWhole(tree.leaf).proof(state);
    const leafReader = new CellReader(tree.leaf);
    leafReader.skip(1); // bt_leaf$0
    const descr = readShardDescr(leafReader, workchain, tree.shard);
    const top = this.find(workchain, descr.shard, descr.seqno).built;
    return { shardblk: tlBlockId(top), shard: tree.shard, leaf: tree.leaf, built: top, proof: this.proofBoc('getShardInfo', [this.blockToState(mc), stateProof]) };
  }

  private accountState(mc: BuiltBlock, account: AccountId) {
    const id = account.id.toString('hex');
    const shard = account.workchain === -1 ? null : this.shardProof(mc, account.workchain, accountPosition(id));
    const block = shard ? shard.built : mc;
    const accounts = block.state.refs[1]!;
    const root = accounts.refs[0]; // HashmapAugE: absent when the map is empty
    const path = root ? hashmapPath(root, 256, BigInt(`0x${id}`)) : { cells: [], value: null };
    const stateProof = new ProofBuilder().show(accounts, ...path.cells).proof(block.state);
    let state: Buffer = Buffer.alloc(0);
    if (path.value) {
      // depth_balance$_ split_depth:(#<= 30) balance:CurrencyCollection, then account:^Account …
      path.value.skip(5);
      readCurrencyCollection(path.value);
      state = path.value.ref().toBoc();
    }
    return {
      id: tlBlockId(mc),
      shardblk: tlBlockId(block),
      shardProof: shard ? shard.proof : Buffer.alloc(0),
      proof: this.proofBoc('getAccountState', [this.blockToState(block), stateProof]),
      state,
    };
  }

  /** Up to `count` transactions of the account from (lt, hash) back, newest first. */
  private history(account: AccountId, lt: bigint, hash: Buffer, count: number) {
    this.indexTo(this.head.seqno);
    const list = this.transactions.get(`${account.workchain}:${account.id.toString('hex')}`) ?? [];
    const start = list.findIndex((t) => t.lt === lt && t.hash === hash.toString('hex'));
    if (start < 0) throw new LiteServerError(LiteErrorCode.error, 'cannot locate transaction in block with specified logical time');
    const page = list.slice(start, start + Math.min(count, 16));
    return { ids: page.map((t) => t.block), transactions: multiRootBoc(page.map((t) => t.cell)) };
  }

  private proofBoc(method: LiteMethodName, roots: Cell[]): Buffer {
    const tamper = this.options.lie?.tamperProof?.(method) ?? false;
    return multiRootBoc(tamper ? roots.map((r) => convertToMerkleProof(tamperPruned(r.refs[0]!))) : roots);
  }
}

/** The tree with one bit flipped in the first pruned hash found: hashes up to the root change with it. */
function tamperPruned(cell: Cell): Cell {
  if (cell.isExotic && cell.bits.length === 8 + 8 + 256 + 16) {
    const b = beginCell();
    for (let k = 0; k < cell.bits.length; k++) b.storeBit(k === 16 + 7 ? !cell.bits.at(k) : cell.bits.at(k));
    return b.endCell({ exotic: true });
  }
  if (cell.isExotic) return cell; // a MERKLE_UPDATE stores its children's hashes: leave it
  for (let i = 0; i < cell.refs.length; i++) {
    const changed = tamperPruned(cell.refs[i]!);
    if (changed !== cell.refs[i]) {
      const b = beginCell().storeBits(cell.bits);
      cell.refs.forEach((r, k) => b.storeRef(k === i ? changed : r));
      return b.endCell();
    }
  }
  return cell;
}
