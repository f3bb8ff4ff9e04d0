// A liteserver over a BlockArchive: answers an AdnlServer's queries from the archive's block and state cells,
// with Merkle proofs built as the node builds them (trust/ checks them). The head it serves moves with
// `advance`; waitMasterchainSeqno prefixes wait for it.
import { beginCell, type Cell } from '@ton/core';
import { shardHex } from '../../blocks/shard.js';
import { readTransactionCells } from '../../decode/block.js';
import { readCurrencyCollection } from '../../decode/message.js';
import { CellReader } from '../../cell/core-reader.js';
import { readShardDescr, readShardHashes } from '../../decode/shard-hashes.js';
import { loadBlockInfo, type BlockInfo } from '../../tlb/block-info.js';
import { LiteErrorCode, LiteServerError } from '../tl/envelope.js';
import type { AccountId, BlockIdExt, LiteMethodName, LookupBlockRequest } from '../tl/lite-api.js';
import type { SignatureSet } from '../tl/lite-types.js';
import type { LiteServerHandler, LiteServerMethods } from '../transport/adnl-server.js';
import { MasterchainHead } from '../transport/adnl-server.js';
import { merkleUpdateHashes } from '../trust/merkle.js';
import { accountPosition } from '../trust/shards.js';
import type { ArchivedBlock, BlockArchive } from './archive.js';
import { tlBlockIdOf } from './block-id.js';
import { serveBlockProof, type BlockProofSource, type LinkedBlock } from './block-proof.js';
import { serveConfig } from './config.js';
import { serveLibraries } from './libraries.js';
import { blockTransactions, blockTransactionsExt } from './block-transactions.js';
import { acceptExternalMessage, type MessageSink } from './messages.js';
import type { NonFinalBlocks } from './nonfinal.js';
import { hashmapPath, multiRootBoc, ProofBuilder, shardTreePath } from './proof-builder.js';
import { runSmcMethod, type FoundAccount, type GetMethodRunner } from './run-method.js';

export const SERVER_VERSION = 0x101;
/** Capabilities bits: 1 = block proofs with signatures, 2 = runSmcMethod proofs, 4 = waitMasterchainSeqno. */
export const SERVER_CAPABILITIES = 7n;

export interface ArchiveLiteServerOptions {
  /** Served head; default the archive's newest masterchain block. Move it with `advance`. */
  head?: number;
  /** Where sendMessage hands an accepted external message (a mempool); without it sendMessage is refused. */
  messages?: MessageSink;
  /** Runs get-methods for runSmcMethod; without it runSmcMethod is refused. */
  getMethods?: GetMethodRunner;
  /** Shard blocks not committed yet, for liteServer.nonfinal.*; without it those queries are refused, as a node without --nonfinal-ls. */
  nonFinal?: NonFinalBlocks;
}

export interface IndexedBlock {
  block: ArchivedBlock;
  info: BlockInfo;
  /** The masterchain block that commits it (its own seqno for a masterchain block). */
  mcSeqno: number;
}

/** What the index keeps of a block: its id and header, not its cells (the archive has them). */
interface BlockEntry {
  id: ArchivedBlock['id'];
  info: BlockInfo;
  mcSeqno: number;
}

interface IndexedTransaction {
  lt: bigint;
  hash: string;
  block: BlockIdExt;
}

/** A TL block id of an archived block. */
export const tlBlockId = tlBlockIdOf;

const blockKey = (workchain: number, shard: bigint | string, seqno: number): string =>
  `${workchain}:${typeof shard === 'string' ? shard : shardHex(BigInt.asUintN(64, shard))}:${seqno}`;

/** The state after a block, or a refusal when the archive no longer keeps it. */
function stateOf(b: ArchivedBlock): Cell {
  if (!b.state) throw new LiteServerError(LiteErrorCode.notReady, `the state of block (${b.id.workchain},${b.id.shard},${b.id.seqno}) is no longer kept`);
  return b.state;
}

const now = (): number => Math.floor(Date.now() / 1000);

export class ArchiveLiteServer implements LiteServerHandler {
  readonly head: MasterchainHead;
  readonly methods: LiteServerMethods;
  private readonly byKey = new Map<string, BlockEntry>();
  private readonly transactions = new Map<string, IndexedTransaction[]>();
  /** Accounts whose transaction list got entries since it was last sorted. */
  private readonly unsorted = new Set<string>();
  private indexed = 0;

  constructor(
    readonly archive: BlockArchive,
    private readonly serverOptions: ArchiveLiteServerOptions = {},
  ) {
    this.head = new MasterchainHead(Math.min(serverOptions.head ?? archive.masterchainSeqno, archive.masterchainSeqno));
    this.methods = this.serve();
  }

  /** Serves masterchain blocks up to `seqno` (capped by what the archive holds). */
  advance(seqno = this.archive.masterchainSeqno): void {
    this.head.advance(this.cap(seqno));
  }

  waitMasterchainSeqno(seqno: number, timeoutMs: number): Promise<void> {
    return this.head.wait(seqno, timeoutMs);
  }

  /** The methods answered, each a function of its request. */
  protected serve(): LiteServerMethods {
    return {
      getMasterchainInfo: () => this.masterchainInfo(),
      getMasterchainInfoExt: ({ mode }) => {
        const top = this.indexedMc(this.head.seqno);
        return { ...this.masterchainInfo(), mode, version: SERVER_VERSION, capabilities: SERVER_CAPABILITIES, lastUtime: top.info.genUtime, now: now() };
      },
      getTime: () => ({ now: now() }),
      getVersion: () => ({ mode: 0, version: SERVER_VERSION, capabilities: SERVER_CAPABILITIES, now: now() }),
      lookupBlock: (req) => {
        const b = this.lookup(req);
        return { id: tlBlockId(b.block), mode: 0, headerProof: this.headerProof(b.block) };
      },
      getBlockHeader: ({ id, mode }) => ({ id, mode, headerProof: this.headerProof(this.exact(id).block) }),
      getBlock: ({ id }) => {
        const nonFinal = this.serverOptions.nonFinal?.boc(id);
        return { id, data: nonFinal ?? this.blockBoc(this.exact(id).block) };
      },
      getPendingShardBlocks: ({ mode, wc, shard }) => {
        const nonFinal = this.serverOptions.nonFinal;
        // a node's own words when it was not started with --nonfinal-ls (validator/manager.cpp)
        if (!nonFinal) throw new LiteServerError(LiteErrorCode.error, 'query is not allowed');
        return nonFinal.pending(mode & 1 ? { wc: wc!, shard: shard! } : undefined);
      },
      getAllShardsInfo: ({ id }) => this.allShardsInfo(this.exact(id).block),
      getShardInfo: ({ id, workchain, shard, exact }) => {
        const mc = this.exact(id).block;
        const position = BigInt.asUintN(64, shard);
        const found = this.shardProof(mc, workchain, position);
        if (exact && found.shard !== position) throw new LiteServerError(LiteErrorCode.error, `shard ${shardHex(position)} is not a shard now`);
        return { id, shardblk: found.shardblk, shardProof: found.proof, shardDescr: found.leaf.toBoc() };
      },
      getAccountState: ({ id, account }) => this.accountState(this.exact(id).block, account).reply,
      runSmcMethod: async ({ mode, id, account, methodId, params }) => {
        const runner = this.serverOptions.getMethods;
        if (!runner) throw new LiteServerError(LiteErrorCode.error, 'runSmcMethod is not served here');
        const mc = this.exact(id).block;
        const found = this.accountState(mc, account);
        return runSmcMethod(runner, { mode, methodId, params, found, config: stateOf(mc), proofBoc: (roots) => this.proofBoc('runSmcMethod', roots) });
      },
      getTransactions: ({ count, account, lt, hash }) => this.history(account, lt, hash, count),
      listBlockTransactions: (req) => {
        const b = this.exact(req.id).block;
        return blockTransactions(b, req, (roots) => this.proofBoc('listBlockTransactions', roots));
      },
      listBlockTransactionsExt: (req) => {
        const b = this.exact(req.id).block;
        return blockTransactionsExt(b, req, (roots) => this.proofBoc('listBlockTransactionsExt', roots));
      },
      getBlockProof: (req) => serveBlockProof(this.proofSource(), req),
      getConfigAll: (req) => {
        const mc = this.exact(req.id).block;
        return serveConfig(mc, stateOf(mc), req, (roots) => this.proofBoc('getConfigAll', roots));
      },
      getConfigParams: (req) => {
        const mc = this.exact(req.id).block;
        return serveConfig(mc, stateOf(mc), req, (roots) => this.proofBoc('getConfigParams', roots));
      },
      getLibraries: ({ libraryList }) => serveLibraries(stateOf(this.indexedMc(this.head.seqno).block), libraryList),
      sendMessage: async ({ body }) => {
        const sink = this.serverOptions.messages;
        if (!sink) throw new LiteServerError(LiteErrorCode.error, 'sendMessage is not served here');
        await acceptExternalMessage(body, sink);
        return { status: 1 };
      },
    };
  }

  // ---- what a lying subclass (tests only) overrides; the honest answers ----

  /** The head this server may serve: at most what the archive holds. */
  protected cap(seqno: number): number {
    return Math.min(seqno, this.archive.masterchainSeqno);
  }

  /** Whether a block the head commits is refused anyway. */
  protected withheld(_id: { workchain: number; shard: bigint; seqno: number }): boolean {
    return false;
  }

  /** The bytes getBlock serves for a block. */
  protected blockBoc(b: ArchivedBlock): Buffer {
    return b.boc;
  }

  /** The validators' signatures of a masterchain block that forward links carry. */
  protected signatures(seqno: number): SignatureSet | null {
    return this.archive.signatures?.(seqno) ?? null;
  }

  /** The proof BoC of a method's reply, from its Merkle proof roots. */
  protected proofBoc(_method: LiteMethodName, roots: Cell[]): Buffer {
    return multiRootBoc(roots);
  }

  // ---- lookups ----

  /** What getBlockProof reads: masterchain blocks at or below the head, their states and signatures. */
  private proofSource(): BlockProofSource {
    const linked = (b: IndexedBlock): LinkedBlock => ({ block: b.block, keyBlock: b.info.keyBlock, prevKeyBlockSeqno: b.info.prevKeyBlockSeqno });
    return {
      exact: (id) => linked(this.exact(id)),
      at: (seqno) => linked(this.indexedMc(seqno)),
      headSeqno: () => this.head.seqno,
      signatures: (seqno) => this.signatures(seqno),
      stateOf,
      proofBoc: (roots) => this.proofBoc('getBlockProof', roots),
    };
  }

  private masterchainInfo() {
    const top = this.indexedMc(this.head.seqno).block;
    const zero = this.archive.zeroStates().masterchain.ref;
    return { last: tlBlockId(top), stateRootHash: Buffer.from(merkleUpdateHashes(top.root.refs[2]!, 'state_update').newHash, 'hex'), init: { workchain: -1, rootHash: zero.rootHash, fileHash: zero.fileHash } };
  }

  /** A masterchain block straight from the archive (no index needed). */
  private indexedMc(seqno: number): IndexedBlock {
    const block = this.archive.masterchainBlock(seqno);
    if (!block) throw new LiteServerError(LiteErrorCode.notReady, `masterchain block ${seqno} is not in db`);
    return { block, info: loadBlockInfo(block.root.refs[0]!.beginParse()), mcSeqno: seqno };
  }

  /** Indexes every block the archive's masterchain blocks up to `seqno` commit, and their transactions. */
  private indexTo(seqno: number): void {
    for (; this.indexed < seqno; ) {
      const s = this.indexed + 1;
      const mc = this.archive.masterchainBlock(s);
      if (!mc) throw new LiteServerError(LiteErrorCode.notReady, `masterchain block ${s} is not in db`);
      this.indexed = s;
      this.add(mc, s);
      const extra = mc.root.refs[3]!.refs[3]!;
      for (const top of readShardHashes(new CellReader(extra))) {
        if (top.regMcSeqno !== s) continue;
        // Back through prev_ref until a block committed earlier.
        const queue = [this.archive.block(top.rootHash)];
        while (queue.length > 0) {
          const b = queue.pop();
          if (!b || this.byKey.has(blockKey(b.id.workchain, b.id.shard, b.id.seqno))) continue;
          const prev = this.add(b, s).info.prevRef;
          const parents = prev.kind === 'prev_blk_info' ? [prev.prev] : [prev.prev1, prev.prev2];
          for (const p of parents) queue.push(this.archive.block(p.rootHash.toString('hex')));
        }
      }
    }
  }

  private add(block: ArchivedBlock, mcSeqno: number): BlockEntry {
    const entry = { id: block.id, info: loadBlockInfo(block.root.refs[0]!.beginParse()), mcSeqno };
    this.byKey.set(blockKey(block.id.workchain, block.id.shard, block.id.seqno), entry);
    const id = tlBlockId(block);
    for (const cell of readTransactionCells(block.root.refs[3]!.refs[2]!)) {
      const r = new CellReader(cell);
      r.skip(4);
      const account = `${block.id.workchain}:${r.hex(256)}`;
      const list = this.transactions.get(account) ?? [];
      list.push({ lt: r.bigUint(64), hash: cell.hash().toString('hex'), block: id });
      this.transactions.set(account, list);
      this.unsorted.add(account);
    }
    return entry;
  }

  /** The indexed block with its cells, read from the archive again. */
  private load(entry: BlockEntry): IndexedBlock {
    const block = entry.id.workchain === -1 ? this.archive.masterchainBlock(entry.id.seqno) : this.archive.block(entry.id.rootHash);
    if (!block) throw new LiteServerError(LiteErrorCode.notReady, `block (${blockKey(entry.id.workchain, entry.id.shard, entry.id.seqno)}) is not in db`);
    return { block, info: entry.info, mcSeqno: entry.mcSeqno };
  }

  /** A block the served head commits; 651 otherwise, as a node without it answers. */
  protected find(workchain: number, shard: bigint | string, seqno: number): IndexedBlock {
    const tlShard = typeof shard === 'bigint' ? shard : BigInt.asIntN(64, BigInt(`0x${shard}`));
    const missing = () => new LiteServerError(LiteErrorCode.notReady, `block (${blockKey(workchain, shard, seqno)}) is not in db`);
    if (this.withheld({ workchain, shard: tlShard, seqno })) throw missing();
    if (workchain === -1) {
      if (tlShard !== -(1n << 63n) || seqno < 1 || seqno > this.head.seqno) throw missing();
      return this.indexedMc(seqno);
    }
    this.indexTo(this.head.seqno);
    const entry = this.byKey.get(blockKey(workchain, shard, seqno));
    if (!entry || entry.mcSeqno > this.head.seqno) throw missing();
    return this.load(entry);
  }

  /** The block `id` names, hashes included. */
  private exact(id: BlockIdExt): IndexedBlock {
    const b = this.find(id.workchain, id.shard, id.seqno);
    if (!tlBlockId(b.block).rootHash.equals(id.rootHash)) throw new LiteServerError(LiteErrorCode.notReady, 'block with this root hash is not in db');
    return b;
  }

  /** lookupBlock by seqno (mode 1), by lt (mode 2) or by unix time (mode 4) in the shard holding `id.shard`. */
  private lookup(req: LookupBlockRequest): IndexedBlock {
    const { mode, id } = req;
    if (mode & 1) return this.find(id.workchain, id.shard, id.seqno);
    if (!(mode & 6)) throw new LiteServerError(LiteErrorCode.error, 'lookupBlock mode must ask by seqno (1), lt (2) or utime (4)');
    this.indexTo(this.head.seqno);
    const position = BigInt.asUintN(64, id.shard);
    // Of the blocks whose shard holds the position, the first that reaches the lt or the time.
    let best: BlockEntry | null = null;
    for (const b of this.byKey.values()) {
      if (b.id.workchain !== id.workchain || b.mcSeqno > this.head.seqno) continue;
      const shard = BigInt(`0x${b.id.shard}`);
      const low = shard & -shard;
      if (position < shard - low || position > shard + low - 1n) continue;
      const reaches = mode & 2 ? b.info.endLt > req.lt! : b.info.genUtime >= req.utime!;
      if (reaches && (!best || b.info.startLt < best.info.startLt)) best = b;
    }
    if (!best) throw new LiteServerError(LiteErrorCode.notReady, `no block of ${id.workchain}:${shardHex(position)} reaches ${mode & 2 ? `lt ${req.lt}` : `utime ${req.utime}`}`);
    return this.load(best);
  }

  // ---- replies ----

  /** Proof of the header: the Block root and its BlockInfo subtree. */
  private headerProof(b: ArchivedBlock): Buffer {
    return this.proofBoc('getBlockHeader', [new ProofBuilder().showWhole(b.root.refs[0]!).proof(b.root)]);
  }

  /** A block proof reaching its state_update (the MERKLE_UPDATE, kept whole: it is exotic). */
  private blockToState(b: ArchivedBlock): Cell {
    return new ProofBuilder().showWhole(b.root.refs[0]!, b.root.refs[2]!).proof(b.root);
  }

  private allShardsInfo(mc: ArchivedBlock) {
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
  private shardProof(mc: ArchivedBlock, workchain: number, position: bigint) {
    const state = stateOf(mc);
    const custom = state.refs[3]!;
    const shardHashes = custom.refs[0]!;
    const dict = hashmapPath(shardHashes, 32, BigInt.asUintN(32, BigInt(workchain)));
    if (!dict.value) throw new LiteServerError(LiteErrorCode.error, `workchain ${workchain} is not in the masterchain state`);
    const tree = shardTreePath(dict.value.ref(), position);
    const stateProof = new ProofBuilder().show(custom, ...dict.cells, ...tree.cells).showWhole(tree.leaf).proof(state);
    const leafReader = new CellReader(tree.leaf);
    leafReader.skip(1); // bt_leaf$0
    const descr = readShardDescr(leafReader, workchain, tree.shard);
    const top = this.find(workchain, descr.shard, descr.seqno).block;
    return { shardblk: tlBlockId(top), shard: tree.shard, leaf: tree.leaf, block: top, proof: this.proofBoc('getShardInfo', [this.blockToState(mc), stateProof]) };
  }

  /** The account's state at masterchain block `mc`, its proofs, and the cells a get-method run needs. */
  private accountState(mc: ArchivedBlock, account: AccountId): FoundAccount {
    const id = account.id.toString('hex');
    const shard = account.workchain === -1 ? null : this.shardProof(mc, account.workchain, accountPosition(id));
    const block = shard ? shard.block : mc;
    const accounts = stateOf(block).refs[1]!;
    const root = accounts.refs[0]; // HashmapAugE: absent when the map is empty
    const path = root ? hashmapPath(root, 256, BigInt(`0x${id}`)) : { cells: [], value: null };
    const stateProof = new ProofBuilder().show(accounts, ...path.cells).proof(stateOf(block));
    let accountCell: Cell | null = null;
    if (path.value) {
      // depth_balance$_ split_depth:(#<= 30) balance:CurrencyCollection, then account:^Account …
      path.value.skip(5);
      readCurrencyCollection(path.value);
      accountCell = path.value.ref();
    }
    const shardProof = shard ? shard.proof : Buffer.alloc(0);
    const proof = this.proofBoc('getAccountState', [this.blockToState(block), stateProof]);
    return {
      account,
      accountCell,
      shardBlock: block,
      reply: { id: tlBlockId(mc), shardblk: tlBlockId(block), shardProof, proof, state: accountCell ? accountCell.toBoc() : Buffer.alloc(0) },
    };
  }

  /** Up to `count` transactions of the account from (lt, hash) back, newest first. */
  private history(account: AccountId, lt: bigint, hash: Buffer, count: number) {
    this.indexTo(this.head.seqno);
    const key = `${account.workchain}:${account.id.toString('hex')}`;
    const list = this.transactions.get(key) ?? [];
    if (this.unsorted.delete(key)) list.sort((a, b) => (a.lt > b.lt ? -1 : 1)); // newest first
    const start = list.findIndex((t) => t.lt === lt && t.hash === hash.toString('hex'));
    if (start < 0) throw new LiteServerError(LiteErrorCode.error, 'cannot locate transaction in block with specified logical time');
    const page = list.slice(start, start + Math.min(count, 16));
    // The cells come from the blocks again: the index keeps no cells.
    const cells = new Map<string, Cell>();
    for (const rootHash of new Set(page.map((t) => t.block.rootHash.toString('hex')))) {
      const block = this.archive.block(rootHash);
      if (!block) throw new LiteServerError(LiteErrorCode.notReady, `block with root hash ${rootHash} is not in db`);
      for (const cell of readTransactionCells(block.root.refs[3]!.refs[2]!)) cells.set(cell.hash().toString('hex'), cell);
    }
    return { ids: page.map((t) => t.block), transactions: multiRootBoc(page.map((t) => cells.get(t.hash)!)) };
  }
}
