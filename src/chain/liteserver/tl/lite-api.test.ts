import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TLWriteBuffer } from 'ton-tl';
import { Functions } from 'ton-lite-client/dist/schema.js';
import { tlId, tlIdHex, tlWrite } from './codec.js';
import { DECLARATIONS, ID, type TLName, declaredId } from './lite-schema.js';
import { type BlockIdExt, type LiteMethodName, type RequestOf, type ResponseOf, liteApi } from './lite-api.js';
import {
  LiteServerError, UnknownLiteMethodError, decodeAdnlMessage, decodeLiteAnswer, decodeLiteQuery, encodeAdnlMessage,
  encodeLiteAnswer, encodeLiteError, encodeLiteQuery,
} from './envelope.js';

// Ids as other implementations and the spec write them (liteserver.md §Q1, ton-lite-client 3.1.1's generated
// schema, the Kotlin and C# lite clients): an independent check of our declarations and normalization. Numeric values: docs.ton.org
// writes the ADNL ones as wire bytes (7af98bb4 = little-endian 0xb48bf97a).
const EXPECTED: Partial<Record<TLName, string>> = {
  'adnl.message.query': 'b48bf97a', 'adnl.message.answer': '0fac8416', 'tcp.ping': '4d082b9a', 'tcp.pong': 'dc69fb03',
  'pub.ed25519': '4813b4c6', 'tcp.authentificate': '445bab12', 'tcp.authentificationNonce': 'e35d4ab6', 'tcp.authentificationComplete': 'f7ad9ea6',
  'tonNode.blockId': 'b7cdb167', 'tonNode.blockIdExt': '6752eb78', 'tonNode.zeroStateIdExt': '1d7235ae',
  'liteServer.error': 'bba9e148', 'liteServer.accountId': '75a0e2c5', 'liteServer.libraryEntry': '8aff2446',
  'liteServer.transactionId': 'b12f65af', 'liteServer.transactionMetadata': 'ff706385', 'liteServer.transactionId3': '2c81da77', 'liteServer.lookupBlockResult': '99786be7', 'liteServer.signature': 'a3def855', 'liteServer.signatureSet.ordinary': 'f644a6e6',
  'liteServer.signatureSet.simplex': 'ac249800', 'liteServer.blockLinkBack': 'ef7e1bef', 'liteServer.blockLinkForward': '520fce1c',
  'liteServer.shardBlockLink': 'd30dcf72', 'liteServer.masterchainInfo': '85832881', 'liteServer.masterchainInfoExt': 'a8cce0f5',
  'liteServer.currentTime': 'e953000d', 'liteServer.version': '5a0491e5', 'liteServer.blockData': 'a574ed6c',
  'liteServer.blockState': 'abaddc0c', 'liteServer.blockHeader': '752d8219', 'liteServer.sendMsgStatus': '3950e597',
  'liteServer.accountState': '7079c751', 'liteServer.runMethodResult': 'a39a616b', 'liteServer.shardInfo': '9fe6cd84',
  'liteServer.allShardsInfo': '098fe72d', 'liteServer.transactionInfo': '0edeed47', 'liteServer.transactionList': '6f26c60b',
  'liteServer.blockTransactions': 'bd8cad2b', 'liteServer.blockTransactionsExt': 'fb8ffce4', 'liteServer.partialBlockProof': '8ed0d2c1',
  'liteServer.configInfo': 'ae7b272f', 'liteServer.libraryResult': '117ab96b', 'liteServer.getMasterchainInfo': '89b5e62e',
  'liteServer.getMasterchainInfoExt': '70a671df', 'liteServer.getTime': '16ad5a34', 'liteServer.getVersion': '232b940b',
  'liteServer.nonfinal.getPendingShardBlocks': '5a8ee82c', 'liteServer.nonfinal.pendingShardBlocks': '1fd06e4d',
  'liteServer.getBlock': '6377cf0d', 'liteServer.getState': 'ba6e2eb6', 'liteServer.getBlockHeader': '21ec069e',
  'liteServer.sendMessage': '690ad482', 'liteServer.getAccountState': '6b890e25', 'liteServer.runSmcMethod': '5cc65dd2',
  'liteServer.getShardInfo': '46a2f425', 'liteServer.getAllShardsInfo': '74d3fd6b', 'liteServer.getOneTransaction': 'd40f24ea',
  'liteServer.getTransactions': '1c40e7a1', 'liteServer.lookupBlock': 'fac8f71e', 'liteServer.lookupBlockWithProof': '9c045ff8',
  'liteServer.listBlockTransactions': 'adfcc7da', 'liteServer.listBlockTransactionsExt': '0079dd5c', 'liteServer.getBlockProof': '8aea9c44',
  'liteServer.getConfigAll': '911b26b7', 'liteServer.getConfigParams': '2a111c19', 'liteServer.getLibraries': 'd122b662',
  'liteServer.query': '798c06df', 'liteServer.waitMasterchainSeqno': 'baeab892',
};

describe('lite_api constructor ids', () => {
  it('recomputes every id from its declaration text', () => {
    for (const [name, decl] of Object.entries(DECLARATIONS) as [TLName, string][]) {
      expect(decl.startsWith(`${name} `) || decl.startsWith(`${name}#`), name).toBe(true);
      if (!/^\S+#/.test(decl)) expect(tlIdHex(ID[name]), name).toBe(tlIdHex(tlId(decl)));
      expect(tlIdHex(ID[name]), name).toBe(EXPECTED[name]);
    }
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(DECLARATIONS).sort());
  });

  it('explicit ids are the crc32 of the declaration before the type grew or was renamed', () => {
    // transactionId gained `metadata:mode.8?` (2024); signatureSet became signatureSet.ordinary beside simplex (2026).
    expect(tlIdHex(tlId('liteServer.transactionId mode:# account:mode.0?int256 lt:mode.1?long hash:mode.2?int256 = liteServer.TransactionId')))
      .toBe(tlIdHex(ID['liteServer.transactionId']));
    expect(tlIdHex(tlId('liteServer.signatureSet validator_set_hash:int catchain_seqno:int signatures:(vector liteServer.signature) = liteServer.SignatureSet')))
      .toBe(tlIdHex(ID['liteServer.signatureSet.ordinary']));
    expect(declaredId(DECLARATIONS['liteServer.transactionId'])).not.toBe(tlId(DECLARATIONS['liteServer.transactionId']));
  });

  it('the disputed ids (spec §Q1): crc32 gives what tonutils-go uses, not tongo', () => {
    const lookupBlockResult = 'liteServer.lookupBlockResult id:tonNode.blockIdExt mode:# mc_block_id:tonNode.blockIdExt client_mc_state_proof:bytes mc_block_proof:bytes shard_links:(vector liteServer.shardBlockLink) header:bytes prev_header:bytes = liteServer.LookupBlockResult';
    expect(tlIdHex(tlId(lookupBlockResult))).toBe('99786be7');
    expect(tlIdHex(ID['liteServer.lookupBlockResult'])).toBe('99786be7');
    expect(tlIdHex(tlId('liteServer.libraryResultWithProof id:tonNode.blockIdExt mode:# result:(vector liteServer.libraryEntry) state_proof:bytes data_proof:bytes = liteServer.LibraryResultWithProof'))).toBe('10a927bf');
    expect(tlIdHex(tlId('liteServer.getLibrariesWithProof id:tonNode.blockIdExt mode:# library_list:(vector int256) = liteServer.LibraryResultWithProof'))).toBe('d97693bd');
  });
});

const h = () => randomBytes(32);
const blk = (seqno: number): BlockIdExt => ({ workchain: -1, shard: -(1n << 63n), seqno, rootHash: h(), fileHash: h() });
const acc = { workchain: 0, id: h() };

// One request and one reply per method, with every optional field that a mode bit turns on.
const samples: { [M in LiteMethodName]: [RequestOf<M>, ResponseOf<M>] } = {
  getMasterchainInfo: [{}, { last: blk(5), stateRootHash: h(), init: { workchain: -1, rootHash: h(), fileHash: h() } }],
  getMasterchainInfoExt: [{ mode: 0 }, { mode: 0, version: 0x101, capabilities: 7n, last: blk(5), lastUtime: 1700000000, now: 1700000003, stateRootHash: h(), init: { workchain: -1, rootHash: h(), fileHash: h() } }],
  getTime: [{}, { now: 1700000000 }],
  getVersion: [{}, { mode: 0, version: 0x101, capabilities: 0x7fn, now: 1700000000 }],
  getBlock: [{ id: blk(9) }, { id: blk(9), data: randomBytes(1000) }],
  getPendingShardBlocks: [{ mode: 1, wc: 0, shard: -(1n << 63n) }, { signedBlocks: [blk(7)], candidates: [blk(8), blk(9)] }],
  getState: [{ id: blk(9) }, { id: blk(9), rootHash: h(), fileHash: h(), data: randomBytes(300) }],
  getBlockHeader: [{ id: blk(9), mode: 0 }, { id: blk(9), mode: 0, headerProof: randomBytes(77) }],
  sendMessage: [{ body: randomBytes(5) }, { status: 1 }],
  getAccountState: [{ id: blk(9), account: acc }, { id: blk(9), shardblk: { ...blk(8), workchain: 0, shard: 1n << 62n }, shardProof: randomBytes(3), proof: randomBytes(4), state: randomBytes(5) }],
  runSmcMethod: [{ mode: 31, id: blk(9), account: acc, methodId: 85143n, params: randomBytes(9) },
    { mode: 31, id: blk(9), shardblk: blk(9), shardProof: randomBytes(1), proof: randomBytes(2), stateProof: randomBytes(3), initC7: randomBytes(4), libExtras: randomBytes(5), exitCode: -14, result: randomBytes(6) }],
  getShardInfo: [{ id: blk(9), workchain: 0, shard: -(1n << 63n), exact: true }, { id: blk(9), shardblk: blk(3), shardProof: randomBytes(10), shardDescr: randomBytes(11) }],
  getAllShardsInfo: [{ id: blk(9) }, { id: blk(9), proof: randomBytes(12), data: randomBytes(13) }],
  getOneTransaction: [{ id: blk(9), account: acc, lt: 123456789012n }, { id: blk(9), proof: randomBytes(14), transaction: randomBytes(15) }],
  getTransactions: [{ count: 16, account: acc, lt: 99n, hash: h() }, { ids: [blk(1), blk(2)], transactions: randomBytes(400) }],
  lookupBlock: [{ mode: 7, id: { workchain: 0, shard: 1n << 62n, seqno: 5 }, lt: 10n, utime: 11 }, { id: blk(5), mode: 0, headerProof: randomBytes(20) }],
  lookupBlockWithProof: [{ mode: 2, id: { workchain: 0, shard: 1n << 62n, seqno: 5 }, mcBlockId: blk(4), lt: 10n },
    { id: blk(5), mode: 2, mcBlockId: blk(4), clientMcStateProof: randomBytes(3), mcBlockProof: randomBytes(4), shardLinks: [{ id: blk(3), proof: randomBytes(5) }], header: randomBytes(6), prevHeader: randomBytes(7) }],
  listBlockTransactions: [{ id: blk(9), mode: 7 | 32 | 128, count: 256, after: { account: h(), lt: 5n } },
    { id: blk(9), reqCount: 256, incomplete: true, ids: [{ mode: 7, account: h(), lt: 3n, hash: h() }, { mode: 256 + 2, lt: 4n, metadata: { mode: 0, depth: 2, initiator: acc, initiatorLt: 8n } }], proof: randomBytes(30) }],
  listBlockTransactionsExt: [{ id: blk(9), mode: 7, count: 16 }, { id: blk(9), reqCount: 16, incomplete: false, transactions: randomBytes(40), proof: Buffer.alloc(0) }],
  getBlockProof: [{ mode: 1, knownBlock: blk(1), targetBlock: blk(100) }, {
    complete: true, from: blk(1), to: blk(100), steps: [
      { kind: 'back', toKeyBlock: true, from: blk(1), to: blk(0), destProof: randomBytes(3), proof: randomBytes(4), stateProof: randomBytes(5) },
      { kind: 'forward', toKeyBlock: false, from: blk(1), to: blk(50), destProof: randomBytes(3), configProof: randomBytes(4),
        signatures: { kind: 'ordinary', validatorSetHash: -5, catchainSeqno: 6, signatures: [{ nodeIdShort: h(), signature: randomBytes(64) }] } },
      { kind: 'forward', toKeyBlock: true, from: blk(50), to: blk(100), destProof: randomBytes(3), configProof: randomBytes(4),
        signatures: { kind: 'simplex', ccSeqno: 7, validatorSetHash: 8, signatures: [{ nodeIdShort: h(), signature: randomBytes(64) }], sessionId: h(), slot: 9, candidate: randomBytes(100) } },
    ] }],
  getConfigAll: [{ mode: 0, id: blk(9) }, { mode: 0, id: blk(9), stateProof: randomBytes(50), configProof: randomBytes(60) }],
  getConfigParams: [{ mode: 0, id: blk(9), paramList: [28, 34, -1] }, { mode: 0, id: blk(9), stateProof: randomBytes(50), configProof: randomBytes(60) }],
  getLibraries: [{ libraryList: [h(), h()] }, { result: [{ hash: h(), data: randomBytes(70) }] }],
};

describe('lite_api method codecs', () => {
  it('round-trips every request (inside liteServer.query, with and without the wait prefix) and every reply', () => {
    for (const m of Object.keys(samples) as LiteMethodName[]) {
      const [req, res] = samples[m];
      const q = decodeLiteQuery(encodeLiteQuery(m, req as never));
      expect(q, m).toEqual({ method: m, request: req });
      const qw = decodeLiteQuery(encodeLiteQuery(m, req as never, { seqno: 42, timeoutMs: 5000 }));
      expect(qw, m).toEqual({ method: m, request: req, wait: { seqno: 42, timeoutMs: 5000 } });
      expect(decodeLiteAnswer(m, encodeLiteAnswer(m, res as never)), m).toEqual(res);
    }
  });

  it('encodes requests byte for byte as ton-lite-client does', () => {
    const theirs = (fn: { encodeRequest(src: unknown, w: TLWriteBuffer): void }, src: unknown) => {
      const w = new TLWriteBuffer();
      fn.encodeRequest(src, w);
      return w.build();
    };
    const ours = <M extends LiteMethodName>(m: M, req: RequestOf<M>) => tlWrite((w) => liteApi[m].request.write(w, req as never));
    const id = blk(77);
    const tid = { kind: 'tonNode.blockIdExt', workchain: id.workchain, shard: id.shard.toString(), seqno: id.seqno, rootHash: id.rootHash, fileHash: id.fileHash };
    expect(ours('getBlock', { id })).toEqual(theirs(Functions.liteServer_getBlock, { kind: 'liteServer.getBlock', id: tid }));
    expect(ours('lookupBlock', { mode: 1, id: { workchain: 0, shard: -(1n << 63n), seqno: 5 } })).toEqual(theirs(Functions.liteServer_lookupBlock,
      { kind: 'liteServer.lookupBlock', mode: 1, id: { kind: 'tonNode.blockId', workchain: 0, shard: '-9223372036854775808', seqno: 5 }, lt: null, utime: null }));
    expect(ours('getTransactions', { count: 16, account: acc, lt: 99n, hash: id.rootHash })).toEqual(theirs(Functions.liteServer_getTransactions,
      { kind: 'liteServer.getTransactions', count: 16, account: { kind: 'liteServer.accountId', workchain: 0, id: acc.id }, lt: '99', hash: id.rootHash }));
    expect(ours('getConfigParams', { mode: 0, id, paramList: [28, 34] })).toEqual(theirs(Functions.liteServer_getConfigParams,
      { kind: 'liteServer.getConfigParams', mode: 0, id: tid, paramList: [28, 34] }));
  });

  it('turns liteServer.error into LiteServerError and refuses unknown methods and trailing bytes', () => {
    expect(() => decodeLiteAnswer('getTime', encodeLiteError(651, 'block is not applied'))).toThrow(LiteServerError);
    try {
      decodeLiteAnswer('lookupBlock', encodeLiteError(651, 'not in db'));
    } catch (e) {
      expect(e).toMatchObject({ code: 651, serverMessage: 'not in db', message: 'liteserver error 651 (lookupBlock): not in db' });
    }
    const unknown = tlWrite((w) => w.id(ID['liteServer.query']).bytes(tlWrite((ww) => ww.id(0x12345678))));
    expect(() => decodeLiteQuery(unknown)).toThrow(UnknownLiteMethodError);
    expect(() => decodeLiteAnswer('getTime', Buffer.concat([encodeLiteAnswer('getTime', { now: 1 }), Buffer.alloc(4)]))).toThrow(/4 bytes left/);
    expect(() => decodeLiteAnswer('getTime', encodeLiteAnswer('getVersion', { mode: 0, version: 1, capabilities: 0n, now: 1 })))
      .toThrow(/expected liteServer.currentTime \(#e953000d\)/);
  });

  it('round-trips the ADNL messages', () => {
    const qid = h();
    for (const m of [
      { kind: 'query', queryId: qid, query: randomBytes(9) },
      { kind: 'answer', queryId: qid, answer: randomBytes(300) },
      { kind: 'ping', randomId: -5n },
      { kind: 'pong', randomId: 1n << 40n },
    ] as const) expect(decodeAdnlMessage(encodeAdnlMessage(m))).toEqual(m);
  });
});
