// A fake liteserver over a SyntheticChain (or any block archive) for tests: the production ArchiveLiteServer (real blocks, proofs
// built as the node builds them) that can be told to lie: serve a forged block, tamper with a proof, or
// withhold its head. The lying lives only here, never in the server the devnet runs.
import { beginCell, convertToMerkleProof, type Cell } from '@ton/core';
import type { SyntheticChain } from '../../blocks/testing/synthetic.js';
import type { BlockIdExt, LiteMethodName } from '../tl/lite-api.js';
import type { SignatureSet } from '../tl/lite-types.js';
import type { LiteServerMethods } from '../transport/adnl-server.js';
import type { ArchivedBlock, BlockArchive } from '../server/archive.js';
import { ArchiveLiteServer, tlBlockId, type ArchiveLiteServerOptions, type IndexedBlock } from '../server/archive-server.js';
import { LiteErrorCode, LiteServerError } from '../tl/envelope.js';
import { acceptExternalMessage } from '../server/messages.js';
import { multiRootBoc } from '../server/proof-builder.js';
import { serveLibraries } from './serve-libraries.js';

export { tlBlockId };

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
  /** Flip one bit of every validator signature of this masterchain block in the forward links served. */
  badSignatures?: (seqno: number) => boolean;
}

export interface SyntheticLiteServerOptions extends ArchiveLiteServerOptions {
  lie?: LyingModes;
  /** Serves getBlockProof (testing/serve-block-proof.ts) given the served head's seqno. */
  blockProof?: (headSeqno: () => number) => NonNullable<LiteServerMethods['getBlockProof']>;
  /** Serve these library cells for getLibraries instead of the state's (a liar's wrong cell, a library the chain lacks). */
  libraries?: Cell[];
  /**
   * Keep no block that a masterchain block below this seqno commits, answering 651 for it: an honest node
   * that has pruned its oldest blocks (not a lie).
   */
  prunedBelow?: number;
}

/** Over a SyntheticChain by default; any BlockArchive (e.g. a devnet's) can be served with the same lies. */
export class SyntheticLiteServer<A extends BlockArchive = SyntheticChain> extends ArchiveLiteServer {
  /** Bodies of sendMessage queries, in order (any bytes: a `messages` sink, if given, sees valid ones). */
  readonly sent: Buffer[] = [];
  /** Method names of the queries answered (or refused), in order. */
  readonly calls: LiteMethodName[] = [];
  private readonly lie: LyingModes;
  private readonly prunedBelow: number;

  constructor(
    readonly chain: A,
    options: SyntheticLiteServerOptions = {},
  ) {
    super(chain, { ...options, head: Math.min(options.head ?? chain.masterchainSeqno, options.lie?.withholdAbove ?? Infinity) });
    this.lie = options.lie ?? {};
    this.prunedBelow = options.prunedBelow ?? 0;
    const sink = options.messages;
    const honest = this.methods;
    honest.sendMessage = async ({ body }) => {
      this.sent.push(body);
      if (sink) await acceptExternalMessage(body, sink);
      return { status: 1 };
    };
    if (options.blockProof) honest.getBlockProof = options.blockProof(() => this.head.seqno);
    if (options.libraries) honest.getLibraries = (req) => serveLibraries(options.libraries!, req);
    // Count every call.
    for (const [name, fn] of Object.entries(honest)) {
      (honest as Record<string, unknown>)[name] = (req: unknown) => {
        this.calls.push(name as LiteMethodName);
        return (fn as (r: unknown) => unknown)(req);
      };
    }
  }

  protected override cap(seqno: number): number {
    return Math.min(super.cap(seqno), this.lie.withholdAbove ?? Infinity);
  }

  protected override find(workchain: number, shard: bigint | string, seqno: number): IndexedBlock {
    const found = super.find(workchain, shard, seqno);
    if (found.mcSeqno < this.prunedBelow) throw new LiteServerError(LiteErrorCode.notReady, `block (${workchain},${seqno}) is not in db (pruned)`);
    return found;
  }

  protected override withheld(id: { workchain: number; shard: bigint; seqno: number }): boolean {
    return this.lie.withholdBlock?.(id) ?? false;
  }

  protected override signatures(seqno: number): SignatureSet | null {
    const honest = super.signatures(seqno);
    if (!honest || !this.lie.badSignatures?.(seqno)) return honest;
    const flip = (sig: Buffer) => Buffer.from(sig.map((byte, i) => (i === 0 ? byte ^ 1 : byte)));
    return { ...honest, signatures: honest.signatures.map((s) => ({ ...s, signature: flip(s.signature) })) };
  }

  protected override blockBoc(b: ArchivedBlock): Buffer {
    return this.lie.forgeBlock?.(tlBlockId(b)) ? forgedBlockBoc(b.root) : b.boc;
  }

  protected override proofBoc(method: LiteMethodName, roots: Cell[]): Buffer {
    const tamper = this.lie.tamperProof?.(method) ?? false;
    return multiRootBoc(tamper ? roots.map((r) => convertToMerkleProof(tamperPruned(r.refs[0]!))) : roots);
  }
}

/** The same block with one bit of its header flipped: a well-formed BoC of a block that was never made. */
export function forgedBlockBoc(block: Cell): Buffer {
  const info = block.refs[0]!;
  const bits = info.bits;
  const i = 32 + 8; // in the flags after the tag
  const flipped = beginCell();
  for (let k = 0; k < bits.length; k++) flipped.storeBit(k === i ? !bits.at(k) : bits.at(k));
  for (const r of info.refs) flipped.storeRef(r);
  const root = beginCell().storeBits(block.bits);
  block.refs.forEach((r, k) => root.storeRef(k === 0 ? flipped.endCell() : r));
  return root.endCell().toBoc({ idx: false, crc32: true });
}

/** The tree with one bit flipped in the first pruned hash found: hashes up to the root change with it. */
export function tamperPruned(cell: Cell): Cell {
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
