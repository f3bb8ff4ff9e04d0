// TEST SUPPORT ONLY: `liteServer.getBlockProof` over a SignedChain, built as the node builds it
// (validator/impl/liteserver.cpp): from a non-key known block a backward link to its previous key block,
// then forward links key block → next key block → … → the target, each signed by the session the chain
// says; at most `maxLinks` links per reply (`complete: false`, the client continues from `to`).
// Lying modes sign links with the wrong validators or route the walk through a block that is no key block.
import type { Cell } from '@ton/core';
import type { BuiltBlock } from '../../blocks/build.js';
import { LiteErrorCode, LiteServerError } from '../tl/envelope.js';
import type { PartialBlockProof } from '../tl/lite-api.js';
import type { BlockIdExt, BlockLink, SignatureSet } from '../tl/lite-types.js';
import { hashmapPath, multiRootBoc, ProofBuilder } from './proof-builder.js';
import type { SignedChain, SigningSession } from './signed-chain.js';
import { tlBlockId } from './synthetic-server.js';
import { signOrdinary, signSimplex, testValidators } from './validator-keys.js';

/** How a lying server forges the links whose target `lie.links` selects (default: every link). */
export interface BlockProofLies {
  links?: (to: BlockIdExt) => boolean;
  /** Sign with validators outside the set (an attacker without the keys), naming the right session and hash. */
  impostors?: boolean;
  /** Sign with the previous session's validators (keys of a retired set), naming their session and hash. */
  previousSet?: boolean;
  /** Sign a simplex finalize vote for another candidate block. */
  otherCandidate?: boolean;
  /** Start every reply with a backward link to the block before `known`, claimed to be a key block. */
  backToNonKey?: boolean;
}

export interface BlockProofOptions {
  /** Links per reply (default 16). */
  maxLinks?: number;
  lie?: BlockProofLies;
}

type Request = { mode: number; knownBlock: BlockIdExt; targetBlock?: BlockIdExt };

const sameId = (a: BlockIdExt, b: BlockIdExt) => a.seqno === b.seqno && a.rootHash.equals(b.rootHash) && a.fileHash.equals(b.fileHash);

/** A getBlockProof handler for a server whose masterchain head is `headSeqno()`. */
export function serveBlockProof(signed: SignedChain, headSeqno: () => number, options: BlockProofOptions = {}) {
  const maxLinks = options.maxLinks ?? 16;
  const lie = options.lie ?? {};
  const block = (id: BlockIdExt): BuiltBlock => {
    const b = id.workchain === -1 && id.seqno <= headSeqno() ? signed.chain.masterchainBlock(id.seqno) : undefined;
    if (!b || !sameId(tlBlockId(b), id)) throw new LiteServerError(LiteErrorCode.notReady, `masterchain block ${id.seqno} with this hash is not in db`);
    return b;
  };
  return (req: Request): PartialBlockProof => {
    const known = block(req.knownBlock);
    const target = req.mode & 1 ? block(req.targetBlock!) : signed.chain.masterchainBlock(headSeqno())!;
    const from = tlBlockId(known);
    const to = tlBlockId(target);
    if (target.id.seqno < known.id.seqno) {
      return { complete: true, from, to, steps: [backwardLink(known, target)] };
    }
    const steps: BlockLink[] = [];
    let cursor = known;
    if (lie.backToNonKey && cursor.id.seqno > 1) {
      const before = signed.chain.masterchainBlock(cursor.id.seqno - 1)!;
      steps.push({ ...backwardLink(cursor, before), toKeyBlock: true });
      cursor = before;
    } else if (!cursor.info.keyBlock && target.id.seqno > cursor.id.seqno) {
      const prevKey = signed.chain.masterchainBlock(cursor.info.prevKeyBlockSeqno)!;
      steps.push(backwardLink(cursor, prevKey));
      cursor = prevKey;
    }
    while (cursor.id.seqno < target.id.seqno && steps.length < maxLinks) {
      // No key block lies between a backward link's target and `known`: search on from the later.
      const next = nextKeyBlock(signed, Math.max(cursor.id.seqno, known.id.seqno), target.id.seqno) ?? target;
      steps.push(forwardLink(signed, cursor, next, lie));
      cursor = next;
    }
    return { complete: cursor === target, from, to: tlBlockId(cursor), steps };
  };
}

function nextKeyBlock(signed: SignedChain, after: number, before: number): BuiltBlock | undefined {
  for (let s = after + 1; s < before; s++) {
    const b = signed.chain.masterchainBlock(s)!;
    if (b.info.keyBlock) return b;
  }
  return undefined;
}

/** The Block root with BlockInfo whole: what a link's `dest_proof` proves. */
function headerProof(b: BuiltBlock): Buffer {
  return multiRootBoc([new ProofBuilder().showWhole(b.root.refs[0]!).proof(b.root)]);
}

/** The key block down `extra → custom → config` with the config dictionary whole. */
function configProof(b: BuiltBlock): Buffer {
  const extra = b.root.refs[3]!;
  const custom = extra.refs[3]!;
  const config = custom.refs[custom.refs.length - 1]!;
  return multiRootBoc([new ProofBuilder().show(extra, custom).showWhole(config).proof(b.root)]);
}

export function forwardLink(signed: SignedChain, from: BuiltBlock, to: BuiltBlock, lie: BlockProofLies = {}): BlockLink {
  const target = tlBlockId(to);
  const session = signed.sessionOf(to.id.seqno);
  if (!session) throw new LiteServerError(LiteErrorCode.error, `no validators signed block ${to.id.seqno}`);
  const lying = (lie.links ?? (() => true))(target);
  return {
    kind: 'forward',
    toKeyBlock: to.info.keyBlock,
    from: tlBlockId(from),
    to: target,
    destProof: headerProof(to),
    configProof: configProof(from),
    signatures: lying ? forgedSignatures(signed, session, target, lie) : sign(session, target),
  };
}

function sign(session: SigningSession, target: BlockIdExt, signers = session.signers, vote: BlockIdExt = target): SignatureSet {
  if (session.format === 'ordinary') return signOrdinary(target, signers, session.ccSeqno, session.setHash);
  const candidate = { kind: 'ordinary' as const, block: vote, collatedFileHash: Buffer.alloc(32, 7), parent: null };
  return signSimplex(target, signers, session.ccSeqno, session.setHash, { sessionId: session.sessionId, slot: target.seqno, candidate });
}

function forgedSignatures(signed: SignedChain, session: SigningSession, target: BlockIdExt, lie: BlockProofLies): SignatureSet {
  if (lie.impostors) return sign(session, target, testValidators(session.signers.length, `impostor/${session.index}`));
  if (lie.previousSet) {
    const previous = signed.sessions[session.index - 1] ?? session;
    return sign(previous, target);
  }
  if (lie.otherCandidate) {
    const other = { ...target, rootHash: Buffer.alloc(32, 0xee) };
    return sign({ ...session, format: 'simplex' }, target, session.signers, other);
  }
  return sign(session, target);
}

/** `from`'s block to its state_update, and its state down `prev_blocks` to `to`'s entry. */
export function backwardLink(from: BuiltBlock, to: BuiltBlock): BlockLink {
  const blockProof = new ProofBuilder().showWhole(from.root.refs[0]!, from.root.refs[2]!).proof(from.root);
  const state = from.state;
  const custom = state.refs[3]!;
  const info = mcStateInfo(custom);
  const path = hashmapPath(info.refs[0]!, 32, BigInt(to.id.seqno));
  const stateProof = new ProofBuilder().show(custom, info, ...path.cells).proof(state);
  return {
    kind: 'back',
    toKeyBlock: to.info.keyBlock,
    from: tlBlockId(from),
    to: tlBlockId(to),
    destProof: to.info.keyBlock ? headerProof(to) : Buffer.alloc(0),
    proof: multiRootBoc([blockProof]),
    stateProof: multiRootBoc([stateProof]),
  };
}

/** McStateExtra's `^[ flags validator_info prev_blocks … ]`: the ref after shard_hashes and the config. */
function mcStateInfo(custom: Cell): Cell {
  const s = custom.beginParse();
  s.skip(16);
  const hasShardHashes = s.loadBit();
  return custom.refs[hasShardHashes ? 2 : 1]!;
}
