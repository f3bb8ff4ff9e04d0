// The `secure` trust level: a masterchain head is believed only once a chain of getBlockProof links signed
// by the validators proves it from the network's init block (or the newest key block trusted before, kept in
// TrustMemory), and, after the first, once a backward link shows it descends from the head believed before.
// Key blocks passed are remembered; a server whose proof fails is demoted and the walk goes on with another;
// servers that lag the best proven head are reported and demoted; two different blocks proven at one seqno,
// or a proven head that does not descend from the believed one, raise the alarm, after which nothing is
// believed.
import { LRUCache } from 'lru-cache';
import type { BlockIdExt } from '../tl/lite-types.js';
import type { LitePool } from '../transport/pool.js';
import { ProofError } from './errors.js';
import { describeAlarm, type HeadTrust, type ServerTrustReport, type TrustAlarm, type TrustLog, type TrustMemory, type TrustStatus } from './head-trust.js';
import { checkBackwardProof } from './backward-link.js';
import { describeBlockId, sameBlockId } from './block-ref.js';
import { checkPartialProof, type ProvenBlock } from './key-walk.js';

export type { ServerTrustReport } from './head-trust.js';

/** What the level needs of the pool: queries that say who answered, demotion, and each server's head. */
export type TrustPool = Pick<LitePool, 'queryWithServer' | 'demote' | 'status'>;

export interface SecureTrustOptions {
  pool: TrustPool;
  /** The network's `init_block`: trusted by its hashes, and a key block. */
  initBlock: BlockIdExt;
  memory?: TrustMemory;
  /** A server whose head lags the best proven head by more than this many blocks is reported and demoted. */
  maxLagBlocks?: number;
  log?: TrustLog;
  /** Least time between two progress lines of a long walk (default 5 s). */
  progressEveryMs?: number;
}

/** `offer` after the alarm: the source must stop publishing. */
export class TrustAlarmError extends Error {
  override readonly name = 'TrustAlarmError';
  constructor(readonly alarm: TrustAlarm) {
    super(describeAlarm(alarm));
  }
}

export const DEFAULT_MAX_LAG_BLOCKS = 30;
const MC_SHARD = -(1n << 63n);
/** Proven blocks kept for the disagreement check (the newest ones). */
const PROVEN_KEPT = 4096;

/** A walk's outcome: proven (the key blocks it passed, the server of its last reply), or why not. */
type Walk = { proven: true; keyBlocks: BlockIdExt[]; server: string } | { proven: false; why: string };

/** A block proven, and the server that proved it. */
interface Proven {
  id: BlockIdExt;
  server: string;
}

export class SecureTrust implements HeadTrust {
  readonly level = 'secure' as const;
  private head: Proven | null = null;
  /** Trusted key blocks, oldest first (the init or remembered one, then those proven since). */
  private keyBlocks: BlockIdExt[] = [];
  private progress: TrustStatus['progress'] = null;
  private waiting: string | null = null;
  private alarm: TrustAlarm | null = null;
  /** Every block proven (by signatures, or by a backward link from one), by seqno: one per seqno, or the alarm; the oldest proven leaves first. */
  private readonly proven = new LRUCache<number, Proven>({ max: PROVEN_KEPT });
  private readonly servers = new Map<string, ServerTrustReport>();
  private lock: Promise<unknown> = Promise.resolve();
  private readonly maxLag: number;

  constructor(private readonly options: SecureTrustOptions) {
    this.maxLag = options.maxLagBlocks ?? DEFAULT_MAX_LAG_BLOCKS;
    if (!Number.isInteger(this.maxLag) || this.maxLag < 1) throw new Error(`secure trust: maxLagBlocks must be a positive integer, got ${options.maxLagBlocks}`);
    // A zero state is no Block: its config is proven through a state, which the forward-link check does not take.
    if (options.initBlock.seqno === 0) {
      throw new Error('secure trust: the init block is the zero state (seqno 0), and a walk can start only from a key block: use a global config with validator.init_block, or the fast level');
    }
  }

  async start(): Promise<void> {
    const remembered = await this.options.memory?.load();
    const init = this.options.initBlock;
    const from = remembered && remembered.seqno >>> 0 >= init.seqno >>> 0 ? remembered : init;
    this.keyBlocks = [from];
    this.log(`secure trust starts from key block ${describeBlockId(from)} (${from === init ? 'the init block' : 'remembered'})`);
  }

  status(): TrustStatus {
    return {
      level: 'secure', head: this.head?.id ?? null, keyBlock: this.keyBlocks.at(-1) ?? null, progress: this.progress, waiting: this.waiting,
      alarm: this.alarm, servers: this.report(), maxLagBlocks: this.maxLag,
    };
  }

  /** Per-server proofs, failures and lag. */
  report(): ServerTrustReport[] {
    return [...this.servers.values()].map((r) => ({ ...r }));
  }

  offer(server: string, id: BlockIdExt): Promise<BlockIdExt | null> {
    const run = this.lock.then(() => this.consider(server, id));
    this.lock = run.catch(() => undefined);
    return run;
  }

  private async consider(server: string, id: BlockIdExt): Promise<BlockIdExt | null> {
    if (this.keyBlocks.length === 0) throw new Error('secure trust: offer before start');
    this.raiseIfAlarmed();
    if (this.head && id.seqno >>> 0 <= this.head.id.seqno >>> 0) await this.compare(server, id);
    else await this.advance(server, id);
    this.raiseIfAlarmed();
    this.checkLag();
    return this.head?.id ?? null;
  }

  /**
   * A head newer than the believed one: proven by signatures, then, unless it is the first, shown by a backward
   * link to hold the believed head in its history. Key blocks a later walk passes are trusted (and remembered)
   * only then; a walk from the believed head itself (the first, or one from a trusted key block believed as
   * head) has nothing before it to check, and trusts them as it goes so a restart resumes it.
   */
  private async advance(server: string, id: BlockIdExt): Promise<void> {
    const previous = this.head;
    const walk = await this.prove(server, id, previous === null || this.keyBlocks.some((k) => sameBlockId(k, previous.id)));
    if (this.alarm) return;
    if (!walk.proven) {
      this.waiting = walk.why;
      return;
    }
    if (previous) {
      const held = await this.ancestor(walk.server, id, previous.id);
      if (!held) {
        this.waiting = `${server} reports ${describeBlockId(id)}, proven by signatures, but no liteserver proved that it descends from the believed head ${describeBlockId(previous.id)}`;
        return;
      }
      if (!sameBlockId(held.id, previous.id)) {
        this.raise({ kind: 'fork', seqno: previous.id.seqno >>> 0, blocks: [previous.id, id], servers: [previous.server, walk.server], ancestor: held.id });
        return;
      }
      await this.trustKeyBlocks(walk.keyBlocks);
    }
    this.head = { id, server: walk.server };
    this.waiting = null;
    const r = this.reportOf(walk.server);
    if (r.provenSeqno === null || r.provenSeqno < id.seqno >>> 0) r.provenSeqno = id.seqno >>> 0;
  }

  /**
   * A head at or below the believed one must be the block the believed chain holds at its seqno (known, or
   * read from the believed head's history). Another block is only a server's claim until it is proven too:
   * then two blocks are proven at one seqno, the alarm.
   */
  private async compare(server: string, id: BlockIdExt): Promise<void> {
    const ours = this.proven.peek(id.seqno >>> 0);
    if (ours) {
      if (!sameBlockId(ours.id, id)) await this.prove(server, id, false);
      return;
    }
    // Asked of the server that proved the believed head: one on the other chain would name its own block.
    const held = await this.ancestor(this.head!.server, this.head!.id, id);
    if (!held) return; // proven neither way: nothing to compare it with
    this.remember(held.id, held.server);
    if (!sameBlockId(held.id, id)) await this.prove(server, id, false);
  }

  /** Walks links to `target`, preferring `server`; `trustAsWalked` trusts and remembers key blocks reply by reply. */
  private async prove(server: string, target: BlockIdExt, trustAsWalked: boolean): Promise<Walk> {
    if (this.keyBlocks.some((k) => sameBlockId(k, target))) return { proven: true, keyBlocks: [], server };
    const start = [...this.keyBlocks].reverse().find((k) => k.seqno >>> 0 < target.seqno >>> 0);
    if (!start) return { proven: false, why: `${server} reports ${describeBlockId(target)}, older than every trusted key block` };
    let at: ProvenBlock = { id: start, keyBlock: true };
    const failed = new Set<string>();
    const walked: BlockIdExt[] = [];
    let prefer: string | undefined = server;
    const began = Date.now();
    let lastLine = -Infinity; // the first reply of a long walk is logged at once
    let replies = 0;
    let prover = server;
    try {
      while (!sameBlockId(at.id, target)) {
        let answer;
        try {
          answer = await this.options.pool.queryWithServer('getBlockProof', { mode: 1, knownBlock: at.id, targetBlock: target }, { prefer });
        } catch (err) {
          return { proven: false, why: `${server} reports ${describeBlockId(target)}, which no liteserver could prove yet: ${(err as Error).message}` };
        }
        if (failed.has(answer.server)) return { proven: false, why: `${server} reports ${describeBlockId(target)}; only servers whose proofs failed answer` };
        let checked;
        try {
          checked = checkPartialProof(answer.response, at, target);
        } catch (err) {
          if (!(err instanceof ProofError)) throw err;
          failed.add(answer.server);
          this.failed(answer.server, target, err);
          prefer = undefined;
          continue;
        }
        replies++;
        prover = answer.server;
        for (const id of checked.proven) this.remember(id, answer.server);
        if (this.alarm) return { proven: false, why: this.alarm.kind };
        at = checked.reached;
        walked.push(...checked.keyBlocks);
        this.progress = checked.complete ? null : { from: start.seqno, at: at.id.seqno, to: target.seqno };
        if (trustAsWalked) await this.trustKeyBlocks(checked.keyBlocks);
        const now = Date.now();
        if (this.progress && now - lastLine >= (this.options.progressEveryMs ?? 5000)) {
          lastLine = now;
          this.log(`secure trust: key-block walk at ${at.id.seqno} of ${target.seqno} (from ${start.seqno}, ${walked.length} key blocks proven)`);
        }
      }
    } finally {
      this.progress = null;
    }
    if (replies > 1) this.log(`secure trust: walked from ${start.seqno} to ${target.seqno} in ${replies} replies, ${((Date.now() - began) / 1000).toFixed(1)} s; ${walked.length} key blocks proven`);
    return { proven: true, keyBlocks: walked, server: prover };
  }

  /**
   * The block at `expected`'s seqno that the proven block `newer`'s history holds (its state's prev_blocks, one
   * backward link), or null when no server proves it. Asked for `expected` first; a server on another chain lacks
   * that block, so then for the one `server` (the one that proved `newer`) names at that seqno: the link proves
   * which it is either way.
   */
  private async ancestor(server: string, newer: BlockIdExt, expected: BlockIdExt): Promise<Proven | null> {
    const failed: string[] = [];
    const held = await this.linkBack(server, newer, expected, failed);
    if (held) return held;
    const named = await this.namedAt(server, expected.seqno >>> 0, failed);
    return named && !sameBlockId(named, expected) ? this.linkBack(server, newer, named, failed) : null;
  }

  /** One backward link `newer` → `target` from any server not in `failed`; a reply that fails its check demotes its server. */
  private async linkBack(server: string, newer: BlockIdExt, target: BlockIdExt, failed: string[]): Promise<Proven | null> {
    for (;;) {
      let answer;
      try {
        answer = await this.options.pool.queryWithServer('getBlockProof', { mode: 1, knownBlock: newer, targetBlock: target }, { prefer: server, exclude: failed });
      } catch {
        return null; // no server has both blocks (or none is up)
      }
      try {
        const held = checkBackwardProof(answer.response, newer, 'descent');
        if (held.seqno >>> 0 !== target.seqno >>> 0) throw new ProofError('descent.to', 'mismatch', `the link ends at block ${held.seqno}, not at ${target.seqno}`);
        return { id: held, server: answer.server };
      } catch (err) {
        if (!(err instanceof ProofError)) throw err;
        failed.push(answer.server);
        this.failed(answer.server, newer, err);
      }
    }
  }

  /** The masterchain block a server names at `seqno`: a claim, which the backward link asked next proves or refutes. */
  private async namedAt(server: string, seqno: number, exclude: string[]): Promise<BlockIdExt | null> {
    try {
      const { response } = await this.options.pool.queryWithServer('lookupBlock', { mode: 1, id: { workchain: -1, shard: MC_SHARD, seqno } }, { prefer: server, exclude });
      return response.id;
    } catch {
      return null;
    }
  }

  private async trustKeyBlocks(blocks: BlockIdExt[]): Promise<void> {
    const newest = this.keyBlocks.at(-1)!;
    const fresh = blocks.filter((b) => b.seqno >>> 0 > newest.seqno >>> 0);
    if (fresh.length === 0) return;
    this.keyBlocks.push(...fresh);
    if (this.keyBlocks.length > PROVEN_KEPT) this.keyBlocks.splice(0, this.keyBlocks.length - PROVEN_KEPT);
    try {
      await this.options.memory?.save(fresh.at(-1)!);
    } catch (err) {
      this.log(`secure trust: could not remember key block ${fresh.at(-1)!.seqno} (the next start walks from an older one): ${(err as Error).message}`, 'warn');
    }
  }

  /** Records a proven block; a different proven block at its seqno is the alarm. */
  private remember(id: BlockIdExt, server: string): void {
    const seqno = id.seqno >>> 0;
    const before = this.proven.peek(seqno);
    if (before && !sameBlockId(before.id, id)) {
      this.raise({ kind: 'seqno', seqno, blocks: [before.id, id], servers: [before.server, server] });
      return;
    }
    if (before) return;
    this.proven.set(seqno, { id, server });
  }

  private raise(alarm: Omit<TrustAlarm, 'at'>): void {
    if (this.alarm) return;
    this.alarm = { ...alarm, at: new Date().toISOString() };
    this.progress = null;
    this.log(`secure trust ALARM: ${describeAlarm(this.alarm)}`, 'error');
  }

  private failed(server: string, target: BlockIdExt, err: ProofError): void {
    const r = this.reportOf(server);
    r.failedProofs++;
    r.lastFailure = err.message;
    // the demotion is the log line (the source logs every demotion once, whoever demoted)
    this.options.pool.demote(server, `proof toward ${describeBlockId(target)} failed: ${err.message}`, 'disproven');
  }

  /** Servers whose head lags the best proven head by more than the limit are reported and demoted once per episode. */
  private checkLag(): void {
    if (!this.head) return;
    const best = this.head.id.seqno >>> 0;
    for (const s of this.options.pool.status().servers) {
      if (s.state !== 'up' || !s.head) continue;
      const lag = best - (s.head.seqno >>> 0);
      const r = this.reportOf(s.server);
      if (lag <= this.maxLag) {
        r.laggingBy = null;
        continue;
      }
      const first = r.laggingBy === null;
      r.laggingBy = lag;
      if (!first) continue;
      this.options.pool.demote(s.server, `head ${s.head.seqno} lags the best proven head ${best} by ${lag} blocks (more than ${this.maxLag}): withholding or stuck`, 'lagging');
    }
  }

  private raiseIfAlarmed(): void {
    if (this.alarm) throw new TrustAlarmError(this.alarm);
  }

  private reportOf(server: string): ServerTrustReport {
    let r = this.servers.get(server);
    if (!r) this.servers.set(server, (r = { server, provenSeqno: null, failedProofs: 0, lastFailure: null, laggingBy: null }));
    return r;
  }

  private log(line: string, level: 'info' | 'warn' | 'error' = 'info'): void {
    this.options.log?.(level, line);
  }
}
