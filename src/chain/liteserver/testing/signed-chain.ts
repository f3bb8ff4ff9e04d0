// TEST SUPPORT ONLY: a SyntheticChain whose masterchain is signed by test validators, as a real network's
// is: every key block names a new validator set (param 34, with params 28 and 30), the headers after it
// carry that set's session (cc_seqno) and hash, and each block's signers are known, so the fake liteserver
// can serve `getBlockProof` links signed the way the node would sign them (ordinary or simplex sessions).
import type { BuiltBlock } from '../../blocks/build.js';
import { SyntheticChain, type MasterchainStep, type NextMasterchainOptions, type SyntheticChainOptions } from '../../blocks/testing/synthetic.js';
import type { BlockIdExt } from '../tl/lite-types.js';
import { tlBlockId } from './synthetic-server.js';
import {
  catchainConfigCell,
  configDictCell,
  masterchainSigners,
  simplexConsensusConfigCell,
  testValidators,
  validatorSetCell,
  type TestValidator,
} from './validator-keys.js';

export type SignatureFormat = 'ordinary' | 'simplex';

/** The validators that sign masterchain blocks from one key block to the next (inclusive). */
export interface SigningSession {
  /** 0 for the set the init block names, +1 per key block after it. */
  index: number;
  ccSeqno: number;
  setHash: number;
  /** The main validators in the node's (shuffled) order. */
  signers: TestValidator[];
  /** Every validator of the set (param 34), for lying servers that sign with the wrong ones. */
  validators: TestValidator[];
  format: SignatureFormat;
  /** Simplex session id (unused by ordinary sessions). */
  sessionId: Buffer;
}

export interface SignedChainOptions {
  /** Validators per set and how many of them sign masterchain blocks (default 16 and 12). */
  total?: number;
  main?: number;
  /** Keys derive from this label: two chains with one label share their validators (a fork). */
  label?: string;
  /** Sessions' formats by index (default: even ordinary, odd simplex). */
  format?: (index: number) => SignatureFormat;
  /** Masterchain blocks made before the init key block (default 2). */
  before?: number;
  /** The synthetic chain's own options (e.g. `startUtime`: two forks must share them). */
  chain?: SyntheticChainOptions;
}

export class SignedChain {
  readonly chain: SyntheticChain;
  readonly sessions: SigningSession[] = [];
  /** Every masterchain step made, seqno 1 first (blocks with their shard blocks: the ground truth of transactions). */
  readonly steps: MasterchainStep[] = [];
  /** The key block a client trusts by its hashes (a network's `init_block`). */
  readonly init: BlockIdExt;
  private readonly sessionBySeqno: number[] = [];
  private readonly total: number;
  private readonly main: number;
  private readonly label: string;
  private readonly format: (index: number) => SignatureFormat;

  constructor(options: SignedChainOptions = {}) {
    this.chain = new SyntheticChain(options.chain);
    this.total = options.total ?? 16;
    this.main = options.main ?? 12;
    this.label = options.label ?? 'signed-chain';
    this.format = options.format ?? ((i) => (i % 2 ? 'simplex' : 'ordinary'));
    for (let i = 0; i < (options.before ?? 2); i++) this.next();
    // The init block is trusted by its hashes: who signed it does not matter.
    this.init = tlBlockId(this.rotate().masterchain);
  }

  /** Plain masterchain blocks signed by the current session; `transfers` lets two forks differ. */
  blocks(n: number, transfers = 0): BuiltBlock[] {
    const made: BuiltBlock[] = [];
    for (let i = 0; i < n; i++) {
      for (let t = 0; t < transfers; t++) {
        this.chain.transfer({ from: this.chain.addressIn('8000000000000000', 9_999), to: this.chain.addressIn('8000000000000000', t), amount: 1_000n + BigInt(t) });
      }
      made.push(this.step().masterchain);
    }
    return made;
  }

  /** One plain masterchain block signed by the current session, with whatever the chain has queued. */
  step(): MasterchainStep {
    return this.next();
  }

  /**
   * A key block naming a new validator set: signed by the current session, the next session signs after it.
   * `keepSet`: a key block that changes no validator (another param), after which the same session signs on.
   */
  keyBlock(options: { keepSet?: boolean } = {}): BuiltBlock {
    return this.rotate(options.keepSet ?? false).masterchain;
  }

  /** The session whose validators sign masterchain block `seqno` (undefined before the init block). */
  sessionOf(seqno: number): SigningSession | undefined {
    const i = this.sessionBySeqno[seqno];
    return i === undefined ? undefined : this.sessions[i];
  }

  /** TL id of masterchain block `seqno`. */
  id(seqno: number): BlockIdExt {
    const b = this.chain.masterchainBlock(seqno);
    if (!b) throw new Error(`masterchain block ${seqno} is not made yet`);
    return tlBlockId(b);
  }

  get head(): BlockIdExt {
    return this.id(this.chain.masterchainSeqno);
  }

  private next(options?: NextMasterchainOptions): MasterchainStep {
    const step = this.chain.nextMasterchainBlock(options);
    this.steps.push(step);
    if (this.sessions.length > 0) this.sessionBySeqno[step.masterchain.id.seqno] = this.sessions.length - 1;
    return step;
  }

  private rotate(keepSet = false) {
    const index = this.sessions.length;
    const weight = (i: number) => 1_000_000n + BigInt(((i * 7 + index) % 11) * 1000);
    const kept = keepSet ? this.sessions.at(-1) : undefined;
    const validators = kept?.validators ?? testValidators(this.total, `${this.label}/set/${index}`, weight);
    const config = configDictCell(new Map([
      [34, validatorSetCell(validators, { main: this.main })],
      [28, catchainConfigCell({ shuffleMcValidators: true })],
      [30, simplexConsensusConfigCell()],
    ]));
    const step = this.next({ keyBlock: true, config });
    if (kept) return step;
    const ccSeqno = index + 1;
    const { signers, setHash } = masterchainSigners(validators, ccSeqno, { main: this.main });
    this.sessions.push({ index, ccSeqno, setHash, signers, validators, format: this.format(index), sessionId: Buffer.alloc(32, (index % 250) + 1) });
    // Headers name the session that signs them.
    this.chain.setValidators(setHash, ccSeqno);
    return step;
  }
}
