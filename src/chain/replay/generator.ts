// Generates the replay chain block by block: new traces start in every block, and each hop of a
// trace lands in the block after the previous hop, as on the real chain. Deterministic for a
// seed and a clock. Everything per transaction is an object literal of a fixed shape (one hidden
// class), ids come from counters, and template parts that never change are shared.
import type { AccountId, BlockHeader, FinalizedBlock, HashHex, MessageModel, PendingMessage, SourcedTransaction, TransactionModel } from '../model.js';
import { bindDecoded, compileTemplate, deepen, type CompiledMessage, type CompiledTemplate, type RoleKind } from './compile.js';
import { HashSequence, Random, accountIds } from './ids.js';
import type { ResolvedReplayOptions } from './options.js';
import type { TemplateFile, TemplateKind } from './templates.js';

const FULL_SHARD = '8000000000000000';
/** Balance reported for every pool account (the replay keeps no balances). */
export const REPLAY_BALANCE = 1_000_000_000_000n;

/** A trace on its way through the blocks. */
interface LiveTrace {
  template: CompiledTemplate;
  /** Account index (into the generator's account table) of each role. */
  accounts: number[];
  /** Messages created so far, by slot; the consumer reuses the creator's object. */
  messages: Array<MessageModel | undefined>;
  rootHash: HashHex;
  startSeqno: number;
}

export interface GeneratorStats {
  blocks: number;
  transactions: number;
  traces: number;
  pendingMessages: number;
}

export class BlockGenerator {
  private readonly random: Random;
  private readonly txHashes: HashSequence;
  private readonly msgHashes: HashSequence;
  private readonly blockHashes: HashSequence;
  /** Owner wallets, then their jetton wallets, then addresses without code. */
  readonly accounts: AccountId[];
  private readonly owners: number;
  private readonly nobodies: number;
  private readonly lastLt: number[];
  private readonly lastHash: HashHex[];
  private readonly templates: CompiledTemplate[];
  /** Cumulative probability of each template kind, in `templates` order. */
  private readonly cumulative: number[];
  private readonly tracesPerBlock: number;
  private traceBudget = 0;
  /** Traces by the block of their next hop, modulo the ring size. */
  private readonly ring: LiveTrace[][];
  /** Roots of the next block, chosen one block early so they can be announced as pending. */
  private planned: LiveTrace[] = [];
  private pending: PendingMessage[] = [];
  private nextSeqno: number;
  private nextLt: number;
  private lastUtime = 0;
  readonly stats: GeneratorStats = { blocks: 0, transactions: 0, traces: 0, pendingMessages: 0 };

  constructor(
    private readonly options: ResolvedReplayOptions,
    file: TemplateFile,
  ) {
    const { seed } = options;
    this.random = new Random(seed);
    this.txHashes = new HashSequence(seed, 1);
    this.msgHashes = new HashSequence(seed, 2);
    this.blockHashes = new HashSequence(seed, 3);
    this.owners = options.accounts;
    this.nobodies = Math.max(1, Math.ceil(this.owners / 16));
    const generated = accountIds(seed, (options.accountIds ? 0 : this.owners) + this.owners + this.nobodies);
    this.accounts = options.accountIds ? [...options.accountIds, ...generated] : generated;
    this.lastLt = new Array(this.accounts.length).fill(0);
    this.lastHash = new Array(this.accounts.length).fill('0'.repeat(64));

    const byKind = (kind: TemplateKind) => compileTemplate(deepen(file.templates.find((t) => t.kind === kind)!, options.traceDepth));
    const { jetton, comment, bounce } = options.shares;
    const mix: Array<[TemplateKind, number]> = [
      ['jetton_transfer', jetton],
      ['ton_comment', comment],
      ['bounce', bounce],
      ['ton_transfer', Math.max(0, 1 - jetton - comment - bounce)],
    ];
    this.templates = mix.map(([kind]) => byKind(kind));
    let sum = 0;
    this.cumulative = mix.map(([, share]) => (sum += share));
    const txPerTrace = mix.reduce((acc, [, share], i) => acc + share * this.templates[i]!.transactionCount, 0);
    const txPerBlock = options.transactionsPerSecond / options.blocksPerSecond;
    this.tracesPerBlock = txPerBlock / txPerTrace;
    // a trace is only ever scheduled one block ahead, so two slots suffice
    this.ring = [[], []];
    this.nextSeqno = options.firstSeqno;
    this.nextLt = options.firstSeqno * 1_000_000;
    this.planRoots(this.nextSeqno);
  }

  /** Seqno the next generated block will have. */
  get upcomingSeqno(): number {
    return this.nextSeqno;
  }

  /** Transactions a block holds on average once traces of every depth are in flight. */
  get transactionsPerBlock(): number {
    return this.options.transactionsPerSecond / this.options.blocksPerSecond;
  }

  /** Pending messages announced for the next block (those it will include). */
  takePending(): PendingMessage[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  private accountIndex: Map<AccountId, number> | null = null;

  /** Index of an account in the table, or -1 when the replay never uses it. */
  indexOf(account: AccountId): number {
    this.accountIndex ??= new Map(this.accounts.map((a, i) => [a, i]));
    return this.accountIndex.get(account) ?? -1;
  }

  lastTransactionOf(index: number): { lt: bigint; hash: HashHex } {
    return { lt: BigInt(this.lastLt[index]!), hash: this.lastHash[index]! };
  }

  next(): FinalizedBlock {
    const seqno = this.nextSeqno++;
    const now = Math.floor(this.options.clock() / 1000);
    const utime = (this.lastUtime = Math.max(this.lastUtime, now));
    const startLt = this.nextLt;
    const shardRef = { workchain: 0, shard: FULL_SHARD, seqno };
    const transactions: SourcedTransaction[] = [];

    const slot = seqno % this.ring.length;
    const continuing = this.ring[slot]!;
    this.ring[slot] = [];
    for (const trace of continuing) this.runHop(trace, seqno - trace.startSeqno, seqno, utime, shardRef, transactions);
    for (const trace of this.planned) {
      this.stats.traces++;
      this.runHop(trace, 0, seqno, utime, shardRef, transactions);
    }
    this.planRoots(seqno + 1);

    const header = (workchain: number, endLt: number): BlockHeader => ({
      workchain,
      shard: FULL_SHARD,
      seqno,
      rootHash: this.blockHashes.next(),
      fileHash: this.blockHashes.next(),
      genUtime: utime,
      startLt: BigInt(startLt),
      endLt: BigInt(endLt),
      mcSeqno: seqno,
    });
    const shard = header(0, this.nextLt);
    // the masterchain block itself holds no transactions; it starts after its shard block
    this.nextLt += 1;
    const masterchain = header(-1, this.nextLt);
    masterchain.startLt = shard.endLt;
    this.nextLt = Math.ceil((this.nextLt + 1) / 1000) * 1000;
    this.stats.blocks++;
    this.stats.transactions += transactions.length;
    return { masterchain, shards: [shard], transactions };
  }

  private runHop(
    trace: LiveTrace,
    hop: number,
    seqno: number,
    utime: number,
    block: TransactionModel['block'],
    out: SourcedTransaction[],
  ): void {
    const { template, accounts, messages } = trace;
    for (const step of template.hops[hop]!) {
      const index = accounts[step.role]!;
      const lt = this.nextLt;
      this.nextLt += 1 + step.outs.length;
      const hash = this.txHashes.next();
      let inMessage: MessageModel;
      if (step.external) {
        inMessage = this.message(step.external, trace.rootHash, accounts, 0, 0);
      } else {
        inMessage = messages[step.inSlot]!;
        messages[step.inSlot] = undefined;
      }
      const outMessages: MessageModel[] = new Array(step.outs.length);
      for (let i = 0; i < step.outs.length; i++) {
        const m = step.outs[i]!;
        outMessages[i] = messages[m.slot] = this.message(m, this.msgHashes.next(), accounts, lt + 1 + i, utime);
      }
      const t = step.tpl;
      out.push({
        account: this.accounts[index]!,
        lt: BigInt(lt),
        hash,
        utime,
        prevLt: BigInt(this.lastLt[index]!),
        prevHash: this.lastHash[index]!,
        origStatus: t.origStatus,
        endStatus: t.endStatus,
        kind: t.kind,
        inMessage,
        outMessages,
        computePhase: t.computePhase,
        actionPhase: t.actionPhase,
        bouncePhase: t.bouncePhase,
        creditAmount: t.creditAmount,
        totalFees: t.totalFees,
        aborted: t.aborted,
        destroyed: t.destroyed,
        inbound: t.inbound,
        block,
        mcSeqno: seqno,
        boc: t.boc,
      });
      this.lastLt[index] = lt;
      this.lastHash[index] = hash;
    }
    if (hop + 1 < template.hops.length) this.ring[(seqno + 1) % this.ring.length]!.push(trace);
  }

  /** `accounts`: the trace's account index per role (no closure per hop: this runs per message). */
  private message(m: CompiledMessage, hash: HashHex, accounts: number[], createdLt: number, createdAt: number): MessageModel {
    const t = m.tpl;
    return {
      hash,
      type: t.type,
      source: m.source < 0 ? null : this.accounts[accounts[m.source]!]!,
      destination: m.destination < 0 ? null : this.accounts[accounts[m.destination]!]!,
      value: t.value,
      fwdFee: t.fwdFee,
      bounce: t.bounce,
      bounced: t.bounced,
      createdLt: t.type === 'internal' ? BigInt(createdLt) : t.createdLt,
      createdAt: t.type === 'internal' ? createdAt : t.createdAt,
      opcode: t.opcode,
      bodyBoc: t.bodyBoc,
      bodyHash: t.bodyHash,
      hasInit: t.hasInit,
      decoded: m.decodedRoles ? bindDecoded(m, this.accounts, accounts) : t.decoded,
    };
  }

  /** Chooses the traces that start in block `seqno` (template, accounts, root message). */
  private planRoots(seqno: number): void {
    this.traceBudget += this.tracesPerBlock;
    const count = Math.floor(this.traceBudget);
    this.traceBudget -= count;
    const planned: LiveTrace[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const r = this.random.next();
      let k = 0;
      while (k < this.cumulative.length - 1 && r >= this.cumulative[k]!) k++;
      const template = this.templates[k]!;
      const trace: LiveTrace = {
        template,
        accounts: this.bind(template.roles),
        messages: new Array(template.slots),
        rootHash: this.msgHashes.next(),
        startSeqno: seqno,
      };
      planned[i] = trace;
      if (this.options.pendingShare > 0 && this.random.next() < this.options.pendingShare) this.announce(trace);
    }
    this.planned = planned;
  }

  private bind(roles: RoleKind[]): number[] {
    const owners = this.owners;
    const sender = this.random.below(owners);
    const recipient = (sender + 1 + this.random.below(owners - 1)) % owners;
    return roles.map((kind) => {
      switch (kind) {
        case 'sender':
          return sender;
        case 'recipient':
          return recipient;
        case 'senderJettonWallet':
          return owners + sender;
        case 'recipientJettonWallet':
          return owners + recipient;
        case 'nobody':
          return 2 * owners + this.random.below(this.nobodies);
        case 'relay':
          return this.random.below(owners);
      }
    });
  }

  private announce(trace: LiveTrace): void {
    const { template, accounts } = trace;
    const involved = new Set<AccountId>();
    // what the trace will carry, as a source that emulates records it (PendingMessage.opcodes)
    const opcodes = new Set<number>();
    for (const hop of template.hops) {
      for (const step of hop) {
        involved.add(this.accounts[accounts[step.role]!]!);
        const inbound = step.tpl.inMessage?.opcode;
        if (inbound != null) opcodes.add(inbound);
        for (const out of step.outs) if (out.tpl.opcode !== null) opcodes.add(out.tpl.opcode);
      }
    }
    this.pending.push({
      hash: trace.rootHash,
      boc: template.rootMessageBoc,
      destination: this.accounts[accounts[template.hops[0]![0]!.role]!]!,
      receivedAt: Math.floor(this.options.clock() / 1000),
      involvedAccounts: [...involved].sort(),
      opcodes: [...opcodes].sort((a, b) => a - b),
    });
    this.stats.pendingMessages++;
  }
}
