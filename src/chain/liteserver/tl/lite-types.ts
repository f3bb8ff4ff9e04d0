// Typed codecs of the lite_api types that appear inside liteserver requests and replies.
// `writeX`/`readX` are bare (no constructor id), as fields use them; `Codec`s are boxed.
import { TLError, type TLReader, type TLWriter, tlIdHex } from './codec.js';
import { ID, NAME_BY_ID, type TLName } from './lite-schema.js';

/** A boxed TL value: constructor id, then its fields. */
export interface Codec<T> {
  readonly name: string;
  write(w: TLWriter, v: T): void;
  read(r: TLReader): T;
}

/** A boxed codec for one constructor from its bare field writer and reader. */
export function ctor<T>(name: TLName, body: { write(w: TLWriter, v: T): void; read(r: TLReader): T }): Codec<T> {
  const id = ID[name];
  return {
    name,
    write: (w, v) => {
      w.id(id);
      body.write(w, v);
    },
    read: (r) => {
      r.expectId(id, name);
      return body.read(r);
    },
  };
}

/** Name of the constructor at the reader's position, for "expected X, got Y" errors. */
export function describeId(id: number): string {
  return NAME_BY_ID.get(id) ?? `#${tlIdHex(id)}`;
}

export interface BlockId {
  workchain: number;
  /** Shard prefix as TL's signed long (the masterchain shard is -2^63). */
  shard: bigint;
  seqno: number;
}
export interface BlockIdExt extends BlockId {
  rootHash: Buffer;
  fileHash: Buffer;
}
export interface ZeroStateIdExt {
  workchain: number;
  rootHash: Buffer;
  fileHash: Buffer;
}
export interface AccountId {
  workchain: number;
  id: Buffer;
}

export const writeBlockId = (w: TLWriter, v: BlockId): void => void w.int32(v.workchain).int64(v.shard).int32(v.seqno);
export const readBlockId = (r: TLReader): BlockId => ({ workchain: r.int32(), shard: r.int64(), seqno: r.int32() });
export const writeBlockIdExt = (w: TLWriter, v: BlockIdExt): void =>
  void w.int32(v.workchain).int64(v.shard).int32(v.seqno).int256(v.rootHash).int256(v.fileHash);
export const readBlockIdExt = (r: TLReader): BlockIdExt => ({
  workchain: r.int32(),
  shard: r.int64(),
  seqno: r.int32(),
  rootHash: r.int256(),
  fileHash: r.int256(),
});
export const writeZeroStateIdExt = (w: TLWriter, v: ZeroStateIdExt): void =>
  void w.int32(v.workchain).int256(v.rootHash).int256(v.fileHash);
export const readZeroStateIdExt = (r: TLReader): ZeroStateIdExt => ({ workchain: r.int32(), rootHash: r.int256(), fileHash: r.int256() });
export const writeAccountId = (w: TLWriter, v: AccountId): void => void w.int32(v.workchain).int256(v.id);
export const readAccountId = (r: TLReader): AccountId => ({ workchain: r.int32(), id: r.int256() });

export interface LiteError {
  code: number;
  message: string;
}
export const liteError = ctor<LiteError>('liteServer.error', {
  write: (w, v) => w.int32(v.code).string(v.message),
  read: (r) => ({ code: r.int32(), message: r.string() }),
});

export interface TransactionId3 {
  account: Buffer;
  lt: bigint;
}
export const writeTransactionId3 = (w: TLWriter, v: TransactionId3): void => void w.int256(v.account).int64(v.lt);
export const readTransactionId3 = (r: TLReader): TransactionId3 => ({ account: r.int256(), lt: r.int64() });

export interface TransactionMetadata {
  mode: number;
  depth: number;
  initiator: AccountId;
  initiatorLt: bigint;
}
// Bare in liteServer.transactionId (lower-case type name in the schema).
const transactionMetadata = {
  write: (w: TLWriter, v: TransactionMetadata): void => {
    w.uint32(v.mode).int32(v.depth);
    writeAccountId(w, v.initiator);
    w.int64(v.initiatorLt);
  },
  read: (r: TLReader): TransactionMetadata => ({ mode: r.uint32(), depth: r.int32(), initiator: readAccountId(r), initiatorLt: r.int64() }),
};

/** liteServer.transactionId: which fields are present is `mode` bits 0, 1, 2 and 8. */
export interface TransactionId {
  mode: number;
  account?: Buffer;
  lt?: bigint;
  hash?: Buffer;
  metadata?: TransactionMetadata;
}
function present<T>(v: T | undefined, field: string, bit: number): T {
  if (v === undefined) throw new TLError(`TL: mode bit ${bit} is set but ${field} is missing`);
  return v;
}
export const writeTransactionId = (w: TLWriter, v: TransactionId): void => {
  w.uint32(v.mode);
  if (v.mode & 1) w.int256(present(v.account, 'account', 0));
  if (v.mode & 2) w.int64(present(v.lt, 'lt', 1));
  if (v.mode & 4) w.int256(present(v.hash, 'hash', 2));
  if (v.mode & 256) transactionMetadata.write(w, present(v.metadata, 'metadata', 8));
};
export const readTransactionId = (r: TLReader): TransactionId => {
  const mode = r.uint32();
  const v: TransactionId = { mode };
  if (mode & 1) v.account = r.int256();
  if (mode & 2) v.lt = r.int64();
  if (mode & 4) v.hash = r.int256();
  if (mode & 256) v.metadata = transactionMetadata.read(r);
  return v;
};

export interface Signature {
  nodeIdShort: Buffer;
  signature: Buffer;
}
const writeSignature = (w: TLWriter, v: Signature): void => void w.int256(v.nodeIdShort).bytes(v.signature);
const readSignature = (r: TLReader): Signature => ({ nodeIdShort: r.int256(), signature: r.bytes() });

/** Validator signatures of a block: catchain-era (ordinary) or simplex consensus. */
export type SignatureSet =
  | { kind: 'ordinary'; validatorSetHash: number; catchainSeqno: number; signatures: Signature[] }
  | {
      kind: 'simplex';
      ccSeqno: number;
      validatorSetHash: number;
      signatures: Signature[];
      sessionId: Buffer;
      slot: number;
      candidate: Buffer;
    };
export const signatureSet: Codec<SignatureSet> = {
  name: 'liteServer.SignatureSet',
  write: (w, v) => {
    if (v.kind === 'ordinary') {
      w.id(ID['liteServer.signatureSet.ordinary']).int32(v.validatorSetHash).int32(v.catchainSeqno).vector(v.signatures, writeSignature);
    } else {
      w.id(ID['liteServer.signatureSet.simplex']).int32(v.ccSeqno).int32(v.validatorSetHash).vector(v.signatures, writeSignature);
      w.int256(v.sessionId).int32(v.slot).bytes(v.candidate);
    }
  },
  read: (r) => {
    const id = r.uint32();
    if (id === ID['liteServer.signatureSet.ordinary']) {
      return { kind: 'ordinary', validatorSetHash: r.int32(), catchainSeqno: r.int32(), signatures: r.vector(readSignature) };
    }
    if (id === ID['liteServer.signatureSet.simplex']) {
      return {
        kind: 'simplex',
        ccSeqno: r.int32(),
        validatorSetHash: r.int32(),
        signatures: r.vector(readSignature),
        sessionId: r.int256(),
        slot: r.int32(),
        candidate: r.bytes(),
      };
    }
    throw new TLError(`TL: expected liteServer.SignatureSet (ordinary or simplex), got ${describeId(id)}`);
  },
};

/** One step of a block proof: back (state proof of an older key block) or forward (signed). */
export type BlockLink =
  | { kind: 'back'; toKeyBlock: boolean; from: BlockIdExt; to: BlockIdExt; destProof: Buffer; proof: Buffer; stateProof: Buffer }
  | {
      kind: 'forward';
      toKeyBlock: boolean;
      from: BlockIdExt;
      to: BlockIdExt;
      destProof: Buffer;
      configProof: Buffer;
      signatures: SignatureSet;
    };
export const blockLink: Codec<BlockLink> = {
  name: 'liteServer.BlockLink',
  write: (w, v) => {
    w.id(ID[v.kind === 'back' ? 'liteServer.blockLinkBack' : 'liteServer.blockLinkForward']).bool(v.toKeyBlock);
    writeBlockIdExt(w, v.from);
    writeBlockIdExt(w, v.to);
    w.bytes(v.destProof);
    if (v.kind === 'back') w.bytes(v.proof).bytes(v.stateProof);
    else {
      w.bytes(v.configProof);
      signatureSet.write(w, v.signatures);
    }
  },
  read: (r) => {
    const id = r.uint32();
    const isBack = id === ID['liteServer.blockLinkBack'];
    if (!isBack && id !== ID['liteServer.blockLinkForward']) {
      throw new TLError(`TL: expected liteServer.BlockLink (back or forward), got ${describeId(id)}`);
    }
    const toKeyBlock = r.bool();
    const from = readBlockIdExt(r);
    const to = readBlockIdExt(r);
    const destProof = r.bytes();
    if (isBack) return { kind: 'back', toKeyBlock, from, to, destProof, proof: r.bytes(), stateProof: r.bytes() };
    return { kind: 'forward', toKeyBlock, from, to, destProof, configProof: r.bytes(), signatures: signatureSet.read(r) };
  },
};

export interface ShardBlockLink {
  id: BlockIdExt;
  proof: Buffer;
}
export const writeShardBlockLink = (w: TLWriter, v: ShardBlockLink): void => {
  writeBlockIdExt(w, v.id);
  w.bytes(v.proof);
};
export const readShardBlockLink = (r: TLReader): ShardBlockLink => ({ id: readBlockIdExt(r), proof: r.bytes() });

export interface LibraryEntry {
  hash: Buffer;
  data: Buffer;
}
export const writeLibraryEntry = (w: TLWriter, v: LibraryEntry): void => void w.int256(v.hash).bytes(v.data);
export const readLibraryEntry = (r: TLReader): LibraryEntry => ({ hash: r.int256(), data: r.bytes() });
