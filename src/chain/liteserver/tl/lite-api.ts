// The liteserver methods tonwatch calls (and its own server answers), as typed request/response
// codecs both ways. The envelopes around them (liteServer.query, errors, ADNL messages) are in envelope.ts.
import { TLError, type TLReader, type TLWriter } from './codec.js';
import { ID, NAME_BY_ID, type TLName } from './lite-schema.js';
import {
  type AccountId, type BlockId, type BlockIdExt, type BlockLink, type Codec, type LibraryEntry, type ShardBlockLink,
  type TransactionId, type TransactionId3, type ZeroStateIdExt, blockLink, ctor,
  readAccountId, readBlockId, readBlockIdExt, readLibraryEntry, readShardBlockLink, readTransactionId, readTransactionId3,
  readZeroStateIdExt, writeAccountId, writeBlockId, writeBlockIdExt, writeLibraryEntry, writeShardBlockLink,
  writeTransactionId, writeTransactionId3, writeZeroStateIdExt,
} from './lite-types.js';

export * from './lite-types.js';

// ---- responses ----

export interface MasterchainInfo { last: BlockIdExt; stateRootHash: Buffer; init: ZeroStateIdExt }
export interface MasterchainInfoExt extends MasterchainInfo { mode: number; version: number; capabilities: bigint; lastUtime: number; now: number }
export interface CurrentTime { now: number }
export interface Version { mode: number; version: number; capabilities: bigint; now: number }
export interface BlockData { id: BlockIdExt; data: Buffer }
export interface BlockState { id: BlockIdExt; rootHash: Buffer; fileHash: Buffer; data: Buffer }
export interface BlockHeader { id: BlockIdExt; mode: number; headerProof: Buffer }
export interface SendMsgStatus { status: number }
export interface AccountState { id: BlockIdExt; shardblk: BlockIdExt; shardProof: Buffer; proof: Buffer; state: Buffer }
/** Optional fields follow `mode` bits: 0 shard_proof+proof, 1 state_proof, 3 init_c7, 4 lib_extras, 2 result. */
export interface RunMethodResult {
  mode: number; id: BlockIdExt; shardblk: BlockIdExt; shardProof?: Buffer; proof?: Buffer; stateProof?: Buffer
  initC7?: Buffer; libExtras?: Buffer; exitCode: number; result?: Buffer
}
export interface ShardInfo { id: BlockIdExt; shardblk: BlockIdExt; shardProof: Buffer; shardDescr: Buffer }
export interface AllShardsInfo { id: BlockIdExt; proof: Buffer; data: Buffer }
export interface TransactionInfo { id: BlockIdExt; proof: Buffer; transaction: Buffer }
export interface TransactionList { ids: BlockIdExt[]; transactions: Buffer }
export interface BlockTransactions { id: BlockIdExt; reqCount: number; incomplete: boolean; ids: TransactionId[]; proof: Buffer }
export interface BlockTransactionsExt { id: BlockIdExt; reqCount: number; incomplete: boolean; transactions: Buffer; proof: Buffer }
export interface PartialBlockProof { complete: boolean; from: BlockIdExt; to: BlockIdExt; steps: BlockLink[] }
export interface ConfigInfo { mode: number; id: BlockIdExt; stateProof: Buffer; configProof: Buffer }
export interface LibraryResult { result: LibraryEntry[] }
/** Shard blocks the masterchain has not committed: the newest signed one and the newest newer candidate per shard. */
export interface PendingShardBlocks { signedBlocks: BlockIdExt[]; candidates: BlockIdExt[] }
export interface LookupBlockResult {
  id: BlockIdExt; mode: number; mcBlockId: BlockIdExt; clientMcStateProof: Buffer; mcBlockProof: Buffer
  shardLinks: ShardBlockLink[]; header: Buffer; prevHeader: Buffer
}

function need<T>(v: T | undefined, field: string, bit: number): T {
  if (v === undefined) throw new TLError(`TL: mode bit ${bit} is set but ${field} is missing`);
  return v;
}

const masterchainInfo = ctor<MasterchainInfo>('liteServer.masterchainInfo', {
  write: (w, v) => { writeBlockIdExt(w, v.last); w.int256(v.stateRootHash); writeZeroStateIdExt(w, v.init); },
  read: (r) => ({ last: readBlockIdExt(r), stateRootHash: r.int256(), init: readZeroStateIdExt(r) }),
});
const masterchainInfoExt = ctor<MasterchainInfoExt>('liteServer.masterchainInfoExt', {
  write: (w, v) => {
    w.uint32(v.mode).int32(v.version).int64(v.capabilities);
    writeBlockIdExt(w, v.last);
    w.int32(v.lastUtime).int32(v.now).int256(v.stateRootHash);
    writeZeroStateIdExt(w, v.init);
  },
  read: (r) => {
    const mode = r.uint32(), version = r.int32(), capabilities = r.int64(), last = readBlockIdExt(r);
    return { mode, version, capabilities, last, lastUtime: r.int32(), now: r.int32(), stateRootHash: r.int256(), init: readZeroStateIdExt(r) };
  },
});
const currentTime = ctor<CurrentTime>('liteServer.currentTime', { write: (w, v) => w.int32(v.now), read: (r) => ({ now: r.int32() }) });
const version = ctor<Version>('liteServer.version', {
  write: (w, v) => w.uint32(v.mode).int32(v.version).int64(v.capabilities).int32(v.now),
  read: (r) => ({ mode: r.uint32(), version: r.int32(), capabilities: r.int64(), now: r.int32() }),
});
const blockData = ctor<BlockData>('liteServer.blockData', {
  write: (w, v) => { writeBlockIdExt(w, v.id); w.bytes(v.data); },
  read: (r) => ({ id: readBlockIdExt(r), data: r.bytes() }),
});
const blockState = ctor<BlockState>('liteServer.blockState', {
  write: (w, v) => { writeBlockIdExt(w, v.id); w.int256(v.rootHash).int256(v.fileHash).bytes(v.data); },
  read: (r) => ({ id: readBlockIdExt(r), rootHash: r.int256(), fileHash: r.int256(), data: r.bytes() }),
});
const blockHeader = ctor<BlockHeader>('liteServer.blockHeader', {
  write: (w, v) => { writeBlockIdExt(w, v.id); w.uint32(v.mode).bytes(v.headerProof); },
  read: (r) => ({ id: readBlockIdExt(r), mode: r.uint32(), headerProof: r.bytes() }),
});
const pendingShardBlocks = ctor<PendingShardBlocks>('liteServer.nonfinal.pendingShardBlocks', {
  write: (w, v) => { w.vector(v.signedBlocks, writeBlockIdExt); w.vector(v.candidates, writeBlockIdExt); },
  read: (r) => ({ signedBlocks: r.vector(readBlockIdExt), candidates: r.vector(readBlockIdExt) }),
});
const sendMsgStatus = ctor<SendMsgStatus>('liteServer.sendMsgStatus', { write: (w, v) => w.int32(v.status), read: (r) => ({ status: r.int32() }) });
const accountState = ctor<AccountState>('liteServer.accountState', {
  write: (w, v) => { writeBlockIdExt(w, v.id); writeBlockIdExt(w, v.shardblk); w.bytes(v.shardProof).bytes(v.proof).bytes(v.state); },
  read: (r) => ({ id: readBlockIdExt(r), shardblk: readBlockIdExt(r), shardProof: r.bytes(), proof: r.bytes(), state: r.bytes() }),
});
const runMethodResult = ctor<RunMethodResult>('liteServer.runMethodResult', {
  write: (w, v) => {
    w.uint32(v.mode);
    writeBlockIdExt(w, v.id);
    writeBlockIdExt(w, v.shardblk);
    if (v.mode & 1) w.bytes(need(v.shardProof, 'shard_proof', 0)).bytes(need(v.proof, 'proof', 0));
    if (v.mode & 2) w.bytes(need(v.stateProof, 'state_proof', 1));
    if (v.mode & 8) w.bytes(need(v.initC7, 'init_c7', 3));
    if (v.mode & 16) w.bytes(need(v.libExtras, 'lib_extras', 4));
    w.int32(v.exitCode);
    if (v.mode & 4) w.bytes(need(v.result, 'result', 2));
  },
  read: (r) => {
    const mode = r.uint32();
    const v: RunMethodResult = { mode, id: readBlockIdExt(r), shardblk: readBlockIdExt(r), exitCode: 0 };
    if (mode & 1) { v.shardProof = r.bytes(); v.proof = r.bytes(); }
    if (mode & 2) v.stateProof = r.bytes();
    if (mode & 8) v.initC7 = r.bytes();
    if (mode & 16) v.libExtras = r.bytes();
    v.exitCode = r.int32();
    if (mode & 4) v.result = r.bytes();
    return v;
  },
});
const shardInfo = ctor<ShardInfo>('liteServer.shardInfo', {
  write: (w, v) => { writeBlockIdExt(w, v.id); writeBlockIdExt(w, v.shardblk); w.bytes(v.shardProof).bytes(v.shardDescr); },
  read: (r) => ({ id: readBlockIdExt(r), shardblk: readBlockIdExt(r), shardProof: r.bytes(), shardDescr: r.bytes() }),
});
const allShardsInfo = ctor<AllShardsInfo>('liteServer.allShardsInfo', {
  write: (w, v) => { writeBlockIdExt(w, v.id); w.bytes(v.proof).bytes(v.data); },
  read: (r) => ({ id: readBlockIdExt(r), proof: r.bytes(), data: r.bytes() }),
});
const transactionInfo = ctor<TransactionInfo>('liteServer.transactionInfo', {
  write: (w, v) => { writeBlockIdExt(w, v.id); w.bytes(v.proof).bytes(v.transaction); },
  read: (r) => ({ id: readBlockIdExt(r), proof: r.bytes(), transaction: r.bytes() }),
});
const transactionList = ctor<TransactionList>('liteServer.transactionList', {
  write: (w, v) => { w.vector(v.ids, writeBlockIdExt).bytes(v.transactions); },
  read: (r) => ({ ids: r.vector(readBlockIdExt), transactions: r.bytes() }),
});
const blockTransactions = ctor<BlockTransactions>('liteServer.blockTransactions', {
  write: (w, v) => { writeBlockIdExt(w, v.id); w.uint32(v.reqCount).bool(v.incomplete).vector(v.ids, writeTransactionId).bytes(v.proof); },
  read: (r) => ({ id: readBlockIdExt(r), reqCount: r.uint32(), incomplete: r.bool(), ids: r.vector(readTransactionId), proof: r.bytes() }),
});
const blockTransactionsExt = ctor<BlockTransactionsExt>('liteServer.blockTransactionsExt', {
  write: (w, v) => { writeBlockIdExt(w, v.id); w.uint32(v.reqCount).bool(v.incomplete).bytes(v.transactions).bytes(v.proof); },
  read: (r) => ({ id: readBlockIdExt(r), reqCount: r.uint32(), incomplete: r.bool(), transactions: r.bytes(), proof: r.bytes() }),
});
const partialBlockProof = ctor<PartialBlockProof>('liteServer.partialBlockProof', {
  write: (w, v) => { w.bool(v.complete); writeBlockIdExt(w, v.from); writeBlockIdExt(w, v.to); w.vector(v.steps, blockLink.write); },
  read: (r) => ({ complete: r.bool(), from: readBlockIdExt(r), to: readBlockIdExt(r), steps: r.vector(blockLink.read, 100_000) }),
});
const configInfo = ctor<ConfigInfo>('liteServer.configInfo', {
  write: (w, v) => { w.uint32(v.mode); writeBlockIdExt(w, v.id); w.bytes(v.stateProof).bytes(v.configProof); },
  read: (r) => ({ mode: r.uint32(), id: readBlockIdExt(r), stateProof: r.bytes(), configProof: r.bytes() }),
});
const libraryResult = ctor<LibraryResult>('liteServer.libraryResult', {
  write: (w, v) => void w.vector(v.result, writeLibraryEntry),
  read: (r) => ({ result: r.vector(readLibraryEntry) }),
});
const lookupBlockResult = ctor<LookupBlockResult>('liteServer.lookupBlockResult', {
  write: (w, v) => {
    writeBlockIdExt(w, v.id); w.uint32(v.mode); writeBlockIdExt(w, v.mcBlockId);
    w.bytes(v.clientMcStateProof).bytes(v.mcBlockProof).vector(v.shardLinks, writeShardBlockLink).bytes(v.header).bytes(v.prevHeader);
  },
  read: (r) => ({
    id: readBlockIdExt(r), mode: r.uint32(), mcBlockId: readBlockIdExt(r), clientMcStateProof: r.bytes(), mcBlockProof: r.bytes(),
    shardLinks: r.vector(readShardBlockLink), header: r.bytes(), prevHeader: r.bytes(),
  }),
});

// ---- requests ----

type Empty = Record<string, never>;
export interface LookupBlockRequest { mode: number; id: BlockId; lt?: bigint; utime?: number }
export interface ListBlockTransactionsRequest { id: BlockIdExt; mode: number; count: number; after?: TransactionId3 }

/** One liteserver method: its request (a TL function) and the reply type it returns. */
export interface LiteMethod<Req, Res> {
  readonly name: TLName;
  readonly request: Codec<Req>;
  readonly response: Codec<Res>;
}
function method<Req, Res>(
  name: TLName,
  body: { write(w: TLWriter, v: Req): void; read(r: TLReader): Req },
  response: Codec<Res>,
): LiteMethod<Req, Res> {
  return { name, request: ctor(name, body), response };
}
const empty = { write: () => {}, read: (): Empty => ({}) };
const byBlock = {
  write: (w: TLWriter, v: { id: BlockIdExt }) => writeBlockIdExt(w, v.id),
  read: (r: TLReader) => ({ id: readBlockIdExt(r) }),
};
const byBlockAndAccount = {
  write: (w: TLWriter, v: { id: BlockIdExt; account: AccountId }) => { writeBlockIdExt(w, v.id); writeAccountId(w, v.account); },
  read: (r: TLReader) => ({ id: readBlockIdExt(r), account: readAccountId(r) }),
};
const listBody = {
  write: (w: TLWriter, v: ListBlockTransactionsRequest) => {
    writeBlockIdExt(w, v.id);
    w.uint32(v.mode).uint32(v.count);
    if (v.mode & 128) writeTransactionId3(w, need(v.after, 'after', 7));
  },
  read: (r: TLReader): ListBlockTransactionsRequest => {
    const id = readBlockIdExt(r), mode = r.uint32(), count = r.uint32();
    return mode & 128 ? { id, mode, count, after: readTransactionId3(r) } : { id, mode, count };
  },
};
const lookupBody = <T extends LookupBlockRequest>(extra?: { write(w: TLWriter, v: T): void; read(r: TLReader, v: T): void }) => ({
  write: (w: TLWriter, v: T) => {
    w.uint32(v.mode);
    writeBlockId(w, v.id);
    extra?.write(w, v);
    if (v.mode & 2) w.int64(need(v.lt, 'lt', 1));
    if (v.mode & 4) w.int32(need(v.utime, 'utime', 2));
  },
  read: (r: TLReader): T => {
    const v = { mode: r.uint32(), id: readBlockId(r) } as T;
    extra?.read(r, v);
    if (v.mode & 2) v.lt = r.int64();
    if (v.mode & 4) v.utime = r.int32();
    return v;
  },
});

export const liteApi = {
  getMasterchainInfo: method<Empty, MasterchainInfo>('liteServer.getMasterchainInfo', empty, masterchainInfo),
  getMasterchainInfoExt: method<{ mode: number }, MasterchainInfoExt>('liteServer.getMasterchainInfoExt',
    { write: (w, v) => void w.uint32(v.mode), read: (r) => ({ mode: r.uint32() }) }, masterchainInfoExt),
  getTime: method<Empty, CurrentTime>('liteServer.getTime', empty, currentTime),
  getVersion: method<Empty, Version>('liteServer.getVersion', empty, version),
  getBlock: method<{ id: BlockIdExt }, BlockData>('liteServer.getBlock', byBlock, blockData),
  getState: method<{ id: BlockIdExt }, BlockState>('liteServer.getState', byBlock, blockState),
  getBlockHeader: method<{ id: BlockIdExt; mode: number }, BlockHeader>('liteServer.getBlockHeader', {
    write: (w, v) => { writeBlockIdExt(w, v.id); w.uint32(v.mode); },
    read: (r) => ({ id: readBlockIdExt(r), mode: r.uint32() }),
  }, blockHeader),
  sendMessage: method<{ body: Buffer }, SendMsgStatus>('liteServer.sendMessage',
    { write: (w, v) => void w.bytes(v.body), read: (r) => ({ body: r.bytes() }) }, sendMsgStatus),
  getAccountState: method<{ id: BlockIdExt; account: AccountId }, AccountState>('liteServer.getAccountState', byBlockAndAccount, accountState),
  runSmcMethod: method<{ mode: number; id: BlockIdExt; account: AccountId; methodId: bigint; params: Buffer }, RunMethodResult>(
    'liteServer.runSmcMethod', {
      write: (w, v) => { w.uint32(v.mode); writeBlockIdExt(w, v.id); writeAccountId(w, v.account); w.int64(v.methodId).bytes(v.params); },
      read: (r) => ({ mode: r.uint32(), id: readBlockIdExt(r), account: readAccountId(r), methodId: r.int64(), params: r.bytes() }),
    }, runMethodResult),
  getShardInfo: method<{ id: BlockIdExt; workchain: number; shard: bigint; exact: boolean }, ShardInfo>('liteServer.getShardInfo', {
    write: (w, v) => { writeBlockIdExt(w, v.id); w.int32(v.workchain).int64(v.shard).bool(v.exact); },
    read: (r) => ({ id: readBlockIdExt(r), workchain: r.int32(), shard: r.int64(), exact: r.bool() }),
  }, shardInfo),
  getAllShardsInfo: method<{ id: BlockIdExt }, AllShardsInfo>('liteServer.getAllShardsInfo', byBlock, allShardsInfo),
  getOneTransaction: method<{ id: BlockIdExt; account: AccountId; lt: bigint }, TransactionInfo>('liteServer.getOneTransaction', {
    write: (w, v) => { byBlockAndAccount.write(w, v); w.int64(v.lt); },
    read: (r) => ({ ...byBlockAndAccount.read(r), lt: r.int64() }),
  }, transactionInfo),
  getTransactions: method<{ count: number; account: AccountId; lt: bigint; hash: Buffer }, TransactionList>('liteServer.getTransactions', {
    write: (w, v) => { w.uint32(v.count); writeAccountId(w, v.account); w.int64(v.lt).int256(v.hash); },
    read: (r) => ({ count: r.uint32(), account: readAccountId(r), lt: r.int64(), hash: r.int256() }),
  }, transactionList),
  lookupBlock: method<LookupBlockRequest, BlockHeader>('liteServer.lookupBlock', lookupBody<LookupBlockRequest>(), blockHeader),
  lookupBlockWithProof: method<LookupBlockRequest & { mcBlockId: BlockIdExt }, LookupBlockResult>('liteServer.lookupBlockWithProof',
    lookupBody<LookupBlockRequest & { mcBlockId: BlockIdExt }>({
      write: (w, v) => writeBlockIdExt(w, v.mcBlockId),
      read: (r, v) => { v.mcBlockId = readBlockIdExt(r); },
    }), lookupBlockResult),
  listBlockTransactions: method<ListBlockTransactionsRequest, BlockTransactions>('liteServer.listBlockTransactions', listBody, blockTransactions),
  listBlockTransactionsExt: method<ListBlockTransactionsRequest, BlockTransactionsExt>('liteServer.listBlockTransactionsExt', listBody, blockTransactionsExt),
  getBlockProof: method<{ mode: number; knownBlock: BlockIdExt; targetBlock?: BlockIdExt }, PartialBlockProof>('liteServer.getBlockProof', {
    write: (w, v) => { w.uint32(v.mode); writeBlockIdExt(w, v.knownBlock); if (v.mode & 1) writeBlockIdExt(w, need(v.targetBlock, 'target_block', 0)); },
    read: (r) => {
      const mode = r.uint32(), knownBlock = readBlockIdExt(r);
      return mode & 1 ? { mode, knownBlock, targetBlock: readBlockIdExt(r) } : { mode, knownBlock };
    },
  }, partialBlockProof),
  getConfigAll: method<{ mode: number; id: BlockIdExt }, ConfigInfo>('liteServer.getConfigAll', {
    write: (w, v) => { w.uint32(v.mode); writeBlockIdExt(w, v.id); },
    read: (r) => ({ mode: r.uint32(), id: readBlockIdExt(r) }),
  }, configInfo),
  getConfigParams: method<{ mode: number; id: BlockIdExt; paramList: number[] }, ConfigInfo>('liteServer.getConfigParams', {
    write: (w, v) => { w.uint32(v.mode); writeBlockIdExt(w, v.id); w.vector(v.paramList, (ww, p) => ww.int32(p)); },
    read: (r) => ({ mode: r.uint32(), id: readBlockIdExt(r), paramList: r.vector((rr) => rr.int32()) }),
  }, configInfo),
  getLibraries: method<{ libraryList: Buffer[] }, LibraryResult>('liteServer.getLibraries', {
    write: (w, v) => void w.vector(v.libraryList, (ww, h) => ww.int256(h)),
    read: (r) => ({ libraryList: r.vector((rr) => rr.int256()) }),
  }, libraryResult),
  getPendingShardBlocks: method<{ mode: number; wc?: number; shard?: bigint }, PendingShardBlocks>('liteServer.nonfinal.getPendingShardBlocks', {
    write: (w, v) => { w.uint32(v.mode); if (v.mode & 1) w.int32(need(v.wc, 'wc', 0)).int64(need(v.shard, 'shard', 0)); },
    read: (r) => {
      const mode = r.uint32();
      return mode & 1 ? { mode, wc: r.int32(), shard: r.int64() } : { mode };
    },
  }, pendingShardBlocks),
} as const;

export type LiteApi = typeof liteApi;
export type LiteMethodName = keyof LiteApi;
export type RequestOf<M extends LiteMethodName> = LiteApi[M] extends LiteMethod<infer Q, unknown> ? Q : never;
export type ResponseOf<M extends LiteMethodName> = LiteApi[M] extends LiteMethod<unknown, infer R> ? R : never;

export const METHOD_BY_ID: ReadonlyMap<number, LiteMethodName> = new Map(
  (Object.keys(liteApi) as LiteMethodName[]).map((m) => [ID[liteApi[m].name], m]),
);

export { ID, NAME_BY_ID };
