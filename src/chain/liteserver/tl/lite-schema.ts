// The TL declarations tonwatch speaks, copied as facts from ton-blockchain/ton
// tl/generate/scheme/lite_api.tl (ca7d6e4, 2026-07-16), ton_api.tl (adnl.message.*, tcp.*, pub.ed25519)
// and the simplex signature set added in 39496edf (2026-01-08). A constructor id is the crc32 of the
// normalized declaration unless the schema states `#id` (kept when a type grew fields).
import { tlId } from './codec.js';

export const DECLARATIONS = {
  // ADNL over TCP
  'adnl.message.query': 'adnl.message.query query_id:int256 query:bytes = adnl.Message',
  'adnl.message.answer': 'adnl.message.answer query_id:int256 answer:bytes = adnl.Message',
  'tcp.ping': 'tcp.ping random_id:long = tcp.Pong',
  'tcp.pong': 'tcp.pong random_id:long = tcp.Pong',
  'pub.ed25519': 'pub.ed25519 key:int256 = PublicKey',
  // A client with a key of its own proves it (adnl/adnl-ext-server.cpp): it sends its nonce, the server
  // answers with its own, the client signs client nonce ‖ server nonce. Ids #445bab12, #e35d4ab6, #f7ad9ea6.
  'tcp.authentificate': 'tcp.authentificate nonce:bytes = tcp.Message',
  'tcp.authentificationNonce': 'tcp.authentificationNonce nonce:bytes = tcp.Message',
  'tcp.authentificationComplete': 'tcp.authentificationComplete key:PublicKey signature:bytes = tcp.Message',

  // shared types
  'tonNode.blockId': 'tonNode.blockId workchain:int shard:long seqno:int = tonNode.BlockId',
  'tonNode.blockIdExt': 'tonNode.blockIdExt workchain:int shard:long seqno:int root_hash:int256 file_hash:int256 = tonNode.BlockIdExt',
  'tonNode.zeroStateIdExt': 'tonNode.zeroStateIdExt workchain:int root_hash:int256 file_hash:int256 = tonNode.ZeroStateIdExt',
  'liteServer.error': 'liteServer.error code:int message:string = liteServer.Error',
  'liteServer.accountId': 'liteServer.accountId workchain:int id:int256 = liteServer.AccountId',
  'liteServer.libraryEntry': 'liteServer.libraryEntry hash:int256 data:bytes = liteServer.LibraryEntry',
  'liteServer.transactionMetadata': 'liteServer.transactionMetadata mode:# depth:int initiator:liteServer.accountId initiator_lt:long = liteServer.TransactionMetadata',
  'liteServer.transactionId': 'liteServer.transactionId#b12f65af mode:# account:mode.0?int256 lt:mode.1?long hash:mode.2?int256 metadata:mode.8?liteServer.transactionMetadata = liteServer.TransactionId',
  'liteServer.transactionId3': 'liteServer.transactionId3 account:int256 lt:long = liteServer.TransactionId3',
  'liteServer.signature': 'liteServer.signature node_id_short:int256 signature:bytes = liteServer.Signature',
  'liteServer.signatureSet.ordinary': 'liteServer.signatureSet.ordinary#f644a6e6 validator_set_hash:int catchain_seqno:int signatures:(vector liteServer.signature) = liteServer.SignatureSet',
  'liteServer.signatureSet.simplex': 'liteServer.signatureSet.simplex cc_seqno:int validator_set_hash:int signatures:(vector liteServer.signature) session_id:int256 slot:int candidate:bytes = liteServer.SignatureSet',
  'liteServer.blockLinkBack': 'liteServer.blockLinkBack to_key_block:Bool from:tonNode.blockIdExt to:tonNode.blockIdExt dest_proof:bytes proof:bytes state_proof:bytes = liteServer.BlockLink',
  'liteServer.blockLinkForward': 'liteServer.blockLinkForward to_key_block:Bool from:tonNode.blockIdExt to:tonNode.blockIdExt dest_proof:bytes config_proof:bytes signatures:liteServer.SignatureSet = liteServer.BlockLink',
  'liteServer.shardBlockLink': 'liteServer.shardBlockLink id:tonNode.blockIdExt proof:bytes = liteServer.ShardBlockLink',

  // responses
  'liteServer.masterchainInfo': 'liteServer.masterchainInfo last:tonNode.blockIdExt state_root_hash:int256 init:tonNode.zeroStateIdExt = liteServer.MasterchainInfo',
  'liteServer.masterchainInfoExt': 'liteServer.masterchainInfoExt mode:# version:int capabilities:long last:tonNode.blockIdExt last_utime:int now:int state_root_hash:int256 init:tonNode.zeroStateIdExt = liteServer.MasterchainInfoExt',
  'liteServer.currentTime': 'liteServer.currentTime now:int = liteServer.CurrentTime',
  'liteServer.version': 'liteServer.version mode:# version:int capabilities:long now:int = liteServer.Version',
  'liteServer.blockData': 'liteServer.blockData id:tonNode.blockIdExt data:bytes = liteServer.BlockData',
  'liteServer.blockState': 'liteServer.blockState id:tonNode.blockIdExt root_hash:int256 file_hash:int256 data:bytes = liteServer.BlockState',
  'liteServer.blockHeader': 'liteServer.blockHeader id:tonNode.blockIdExt mode:# header_proof:bytes = liteServer.BlockHeader',
  'liteServer.sendMsgStatus': 'liteServer.sendMsgStatus status:int = liteServer.SendMsgStatus',
  'liteServer.accountState': 'liteServer.accountState id:tonNode.blockIdExt shardblk:tonNode.blockIdExt shard_proof:bytes proof:bytes state:bytes = liteServer.AccountState',
  'liteServer.runMethodResult': 'liteServer.runMethodResult mode:# id:tonNode.blockIdExt shardblk:tonNode.blockIdExt shard_proof:mode.0?bytes proof:mode.0?bytes state_proof:mode.1?bytes init_c7:mode.3?bytes lib_extras:mode.4?bytes exit_code:int result:mode.2?bytes = liteServer.RunMethodResult',
  'liteServer.shardInfo': 'liteServer.shardInfo id:tonNode.blockIdExt shardblk:tonNode.blockIdExt shard_proof:bytes shard_descr:bytes = liteServer.ShardInfo',
  'liteServer.allShardsInfo': 'liteServer.allShardsInfo id:tonNode.blockIdExt proof:bytes data:bytes = liteServer.AllShardsInfo',
  'liteServer.transactionInfo': 'liteServer.transactionInfo id:tonNode.blockIdExt proof:bytes transaction:bytes = liteServer.TransactionInfo',
  'liteServer.transactionList': 'liteServer.transactionList ids:(vector tonNode.blockIdExt) transactions:bytes = liteServer.TransactionList',
  'liteServer.blockTransactions': 'liteServer.blockTransactions id:tonNode.blockIdExt req_count:# incomplete:Bool ids:(vector liteServer.transactionId) proof:bytes = liteServer.BlockTransactions',
  'liteServer.blockTransactionsExt': 'liteServer.blockTransactionsExt id:tonNode.blockIdExt req_count:# incomplete:Bool transactions:bytes proof:bytes = liteServer.BlockTransactionsExt',
  'liteServer.partialBlockProof': 'liteServer.partialBlockProof complete:Bool from:tonNode.blockIdExt to:tonNode.blockIdExt steps:(vector liteServer.BlockLink) = liteServer.PartialBlockProof',
  'liteServer.configInfo': 'liteServer.configInfo mode:# id:tonNode.blockIdExt state_proof:bytes config_proof:bytes = liteServer.ConfigInfo',
  'liteServer.libraryResult': 'liteServer.libraryResult result:(vector liteServer.libraryEntry) = liteServer.LibraryResult',
  'liteServer.nonfinal.pendingShardBlocks': 'liteServer.nonfinal.pendingShardBlocks signed_blocks:(vector tonNode.blockIdExt) candidates:(vector tonNode.blockIdExt) = liteServer.nonfinal.PendingShardBlocks',
  'liteServer.lookupBlockResult': 'liteServer.lookupBlockResult id:tonNode.blockIdExt mode:# mc_block_id:tonNode.blockIdExt client_mc_state_proof:bytes mc_block_proof:bytes shard_links:(vector liteServer.shardBlockLink) header:bytes prev_header:bytes = liteServer.LookupBlockResult',

  // functions
  'liteServer.getMasterchainInfo': 'liteServer.getMasterchainInfo = liteServer.MasterchainInfo',
  'liteServer.getMasterchainInfoExt': 'liteServer.getMasterchainInfoExt mode:# = liteServer.MasterchainInfoExt',
  'liteServer.getTime': 'liteServer.getTime = liteServer.CurrentTime',
  'liteServer.getVersion': 'liteServer.getVersion = liteServer.Version',
  'liteServer.getBlock': 'liteServer.getBlock id:tonNode.blockIdExt = liteServer.BlockData',
  'liteServer.getState': 'liteServer.getState id:tonNode.blockIdExt = liteServer.BlockState',
  'liteServer.getBlockHeader': 'liteServer.getBlockHeader id:tonNode.blockIdExt mode:# = liteServer.BlockHeader',
  'liteServer.sendMessage': 'liteServer.sendMessage body:bytes = liteServer.SendMsgStatus',
  'liteServer.getAccountState': 'liteServer.getAccountState id:tonNode.blockIdExt account:liteServer.accountId = liteServer.AccountState',
  'liteServer.runSmcMethod': 'liteServer.runSmcMethod mode:# id:tonNode.blockIdExt account:liteServer.accountId method_id:long params:bytes = liteServer.RunMethodResult',
  'liteServer.getShardInfo': 'liteServer.getShardInfo id:tonNode.blockIdExt workchain:int shard:long exact:Bool = liteServer.ShardInfo',
  'liteServer.getAllShardsInfo': 'liteServer.getAllShardsInfo id:tonNode.blockIdExt = liteServer.AllShardsInfo',
  'liteServer.getOneTransaction': 'liteServer.getOneTransaction id:tonNode.blockIdExt account:liteServer.accountId lt:long = liteServer.TransactionInfo',
  'liteServer.getTransactions': 'liteServer.getTransactions count:# account:liteServer.accountId lt:long hash:int256 = liteServer.TransactionList',
  'liteServer.lookupBlock': 'liteServer.lookupBlock mode:# id:tonNode.blockId lt:mode.1?long utime:mode.2?int = liteServer.BlockHeader',
  'liteServer.lookupBlockWithProof': 'liteServer.lookupBlockWithProof mode:# id:tonNode.blockId mc_block_id:tonNode.blockIdExt lt:mode.1?long utime:mode.2?int = liteServer.LookupBlockResult',
  'liteServer.listBlockTransactions': 'liteServer.listBlockTransactions id:tonNode.blockIdExt mode:# count:# after:mode.7?liteServer.transactionId3 reverse_order:mode.6?true want_proof:mode.5?true = liteServer.BlockTransactions',
  'liteServer.listBlockTransactionsExt': 'liteServer.listBlockTransactionsExt id:tonNode.blockIdExt mode:# count:# after:mode.7?liteServer.transactionId3 reverse_order:mode.6?true want_proof:mode.5?true = liteServer.BlockTransactionsExt',
  'liteServer.getBlockProof': 'liteServer.getBlockProof mode:# known_block:tonNode.blockIdExt target_block:mode.0?tonNode.blockIdExt = liteServer.PartialBlockProof',
  'liteServer.getConfigAll': 'liteServer.getConfigAll mode:# id:tonNode.blockIdExt = liteServer.ConfigInfo',
  'liteServer.getConfigParams': 'liteServer.getConfigParams mode:# id:tonNode.blockIdExt param_list:(vector int) = liteServer.ConfigInfo',
  'liteServer.getLibraries': 'liteServer.getLibraries library_list:(vector int256) = liteServer.LibraryResult',
  // the one non-final method left after b647a8d5 (2026-05-29) removed getValidatorGroups and getCandidate (docs/FINALITY.md)
  'liteServer.nonfinal.getPendingShardBlocks': 'liteServer.nonfinal.getPendingShardBlocks mode:# wc:mode.0?int shard:mode.0?long = liteServer.nonfinal.PendingShardBlocks',

  // envelopes
  'liteServer.query': 'liteServer.query data:bytes = Object',
  'liteServer.waitMasterchainSeqno': 'liteServer.waitMasterchainSeqno seqno:int timeout_ms:int = Object',
} as const;

export type TLName = keyof typeof DECLARATIONS;

/** The id a declaration carries: its explicit `#id`, else the crc32 of its normalized text. */
export function declaredId(declaration: string): number {
  const explicit = /^\S+?#([0-9a-fA-F]{1,8})\s/.exec(declaration);
  return explicit ? parseInt(explicit[1]!, 16) >>> 0 : tlId(declaration);
}

/** Constructor id by TL name. */
export const ID = Object.fromEntries(
  Object.entries(DECLARATIONS).map(([name, decl]) => [name, declaredId(decl)]),
) as Record<TLName, number>;

/** TL name by constructor id, for error messages and dispatch. */
export const NAME_BY_ID: ReadonlyMap<number, TLName> = new Map(
  (Object.keys(ID) as TLName[]).map((name) => [ID[name], name]),
);
