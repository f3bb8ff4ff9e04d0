// The `secure` trust level: a masterchain head is believed only once a chain of getBlockProof links signed
// by the validators proves it from the network's init block (or the newest key block trusted before, kept in
// TrustMemory). Key blocks passed are remembered; a server whose proof fails is demoted and the walk goes
// on with another; servers that lag the best proven head are reported and demoted; two servers that each
// prove a different block at one seqno raise the alarm, after which nothing is believed.
import type { BlockIdExt } from '../tl/lite-types.js';
import type { LitePool } from '../transport/pool.js';
import { ProofError } from './errors.js';
import type { HeadTrust, TrustAlarm, TrustMemory, TrustStatus } from './head-trust.js';
import { describeBlockId, sameBlockId } from './block-ref.js';
import { checkPartialProof, type ProvenBlock } from './key-walk.js';

/** What the level needs of the pool: queries that say who answered, demotion, and each server's head. */
export type TrustPool = Pick<LitePool, 'queryWithServer' | 'demote' | 'status'>;

export interface SecureTrustOptions {
  pool: TrustPool;
  /** The network's `init_block`: trusted by its hashes, and a key block. */
  initBlock: BlockIdExt;
  memory?: TrustMemory;
  /** A server whose head lags the best proven head by more than this many blocks is reported and demoted. */
  maxLagBlocks?: number;
  log?: (line: string) => void;
  /** Least time between two progress lines of a long walk (default 5 s). */
  progressEveryMs?: number;
}

/** What the level knows of one server, for `/metrics` and `tonwatch chain info`. */
export interface ServerTrustReport {
  server: string;
  /** The newest head this server proved. */
  provenSeqno: number | null;
  /** Proofs of this server that failed. */
  failedProofs: number;
  lastFailure: string | null;
  /** Blocks behind the best proven head when last seen lagging beyond the limit, else null. */
  laggingBy: number | null;
}

/** `offer` after the alarm: the source must stop publishing. */
export class TrustAlarmError extends Error {
  override readonly name = 'TrustAlarmError';
  constructor(readonly alarm: TrustAlarm) {
    super(
      `two liteservers proved different masterchain blocks at seqno ${alarm.seqno}: ${describeBlockId(alarm.blocks[0])} from ${alarm.servers[0]}, `
        + `${describeBlockId(alarm.blocks[1])} from ${alarm.servers[1]} — nothing from this network is believed any more`,
    );
  }
}

const DEFAULT_MAX_LAG = 30;
/** Proven blocks kept for the disagreement check (the newest ones). */
const PROVEN_KEPT = 4096;

export class SecureTrust implements HeadTrust {
  readonly level = 'secure' as const;
  private head: BlockIdExt | null = null;
  /** Trusted key blocks, oldest first (the init or remembered one, then those proven since). */
  private keyBlocks: BlockIdExt[] = [];
  private progress: TrustStatus['progress'] = null;
  private waiting: string | null = null;
  private alarm: TrustAlarm | null = null;
  private readonly proven = new Map<number, { id: BlockIdExt; server: string }>();
  private readonly servers = new Map<string, ServerTrustReport>();
  private lock: Promise<unknown> = Promise.resolve();
  private readonly maxLag: number;

  constructor(private readonly options: SecureTrustOptions) {
    this.maxLag = options.maxLagBlocks ?? DEFAULT_MAX_LAG;
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
    return { level: 'secure', head: this.head, keyBlock: this.keyBlocks.at(-1) ?? null, progress: this.progress, waiting: this.waiting, alarm: this.alarm };
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
    const seen = this.proven.get(id.seqno >>> 0);
    if (this.head && id.seqno >>> 0 <= this.head.seqno >>> 0) {
      // An older or equal head is interesting only when it contradicts a block proven at its seqno.
      if (seen && !sameBlockId(seen.id, id)) await this.prove(server, id);
    } else if (await this.prove(server, id)) {
      this.head = id;
      this.waiting = null;
    }
    this.raiseIfAlarmed();
    this.checkLag();
    return this.head;
  }

  /** Walks links to `target`, preferring `server`; true once proven (the alarm may be raised meanwhile). */
  private async prove(server: string, target: BlockIdExt): Promise<boolean> {
    if (this.keyBlocks.some((k) => sameBlockId(k, target))) return true;
    const start = [...this.keyBlocks].reverse().find((k) => k.seqno >>> 0 < target.seqno >>> 0);
    if (!start) return false; // older than anything trusted: nothing to compare it with
    let at: ProvenBlock = { id: start, keyBlock: true };
    const failed = new Set<string>();
    let prefer: string | undefined = server;
    const began = Date.now();
    let lastLine = began;
    let replies = 0;
    let prover = server;
    while (!sameBlockId(at.id, target)) {
      let answer;
      try {
        answer = await this.options.pool.queryWithServer('getBlockProof', { mode: 1, knownBlock: at.id, targetBlock: target }, { prefer });
      } catch (err) {
        return this.wait(`${server} reports ${describeBlockId(target)}, which no liteserver could prove yet: ${(err as Error).message}`);
      }
      if (failed.has(answer.server)) return this.wait(`${server} reports ${describeBlockId(target)}; only servers whose proofs failed answer`);
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
      if (this.alarm) return false;
      at = checked.reached;
      this.progress = checked.complete ? null : { from: start.seqno, at: at.id.seqno, to: target.seqno };
      if (checked.keyBlocks.length > 0) await this.trustKeyBlocks(checked.keyBlocks);
      const now = Date.now();
      if (this.progress && now - lastLine >= (this.options.progressEveryMs ?? 5000)) {
        lastLine = now;
        this.log(`secure trust: key-block walk at ${at.id.seqno} of ${target.seqno} (from ${start.seqno}, ${this.keyBlocks.length - 1} key blocks proven)`);
      }
    }
    this.progress = null;
    if (replies > 1) this.log(`secure trust: walked from ${start.seqno} to ${target.seqno} in ${replies} replies, ${((Date.now() - began) / 1000).toFixed(1)} s; newest key block ${this.keyBlocks.at(-1)!.seqno}`);
    const r = this.servers.get(prover) ?? this.blankReport(prover);
    this.servers.set(prover, r);
    if (r.provenSeqno === null || r.provenSeqno < target.seqno) r.provenSeqno = target.seqno;
    return true;
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
      this.log(`secure trust: could not remember key block ${fresh.at(-1)!.seqno} (the next start walks from an older one): ${(err as Error).message}`);
    }
  }

  /** Records a proven block; a different proven block at its seqno is the alarm. */
  private remember(id: BlockIdExt, server: string): void {
    const seqno = id.seqno >>> 0;
    const before = this.proven.get(seqno);
    if (before && !sameBlockId(before.id, id)) {
      this.alarm = { seqno, blocks: [before.id, id], servers: [before.server, server], at: new Date().toISOString() };
      this.log(`secure trust ALARM: ${new TrustAlarmError(this.alarm).message}`);
      return;
    }
    if (before) return;
    this.proven.set(seqno, { id, server });
    if (this.proven.size > PROVEN_KEPT) this.proven.delete(this.proven.keys().next().value!);
  }

  private failed(server: string, target: BlockIdExt, err: ProofError): void {
    const r = this.servers.get(server) ?? this.blankReport(server);
    this.servers.set(server, r);
    r.failedProofs++;
    r.lastFailure = err.message;
    const reason = `proof toward ${describeBlockId(target)} failed: ${err.message}`;
    this.log(`secure trust: ${server} ${reason}`);
    this.options.pool.demote(server, reason);
  }

  /** Servers whose head lags the best proven head by more than the limit are reported and demoted once per episode. */
  private checkLag(): void {
    if (!this.head) return;
    const best = this.head.seqno >>> 0;
    for (const s of this.options.pool.status().servers) {
      if (s.state !== 'up' || !s.head) continue;
      const lag = best - (s.head.seqno >>> 0);
      const r = this.servers.get(s.server) ?? this.blankReport(s.server);
      this.servers.set(s.server, r);
      if (lag <= this.maxLag) {
        r.laggingBy = null;
        continue;
      }
      const first = r.laggingBy === null;
      r.laggingBy = lag;
      if (!first) continue;
      const reason = `head ${s.head.seqno} lags the best proven head ${best} by ${lag} blocks (more than ${this.maxLag}): withholding or stuck`;
      this.log(`secure trust: ${s.server} ${reason}`);
      this.options.pool.demote(s.server, reason);
    }
  }

  private wait(why: string): false {
    this.waiting = why;
    this.progress = null;
    return false;
  }

  private raiseIfAlarmed(): void {
    if (this.alarm) throw new TrustAlarmError(this.alarm);
  }

  private blankReport(server: string): ServerTrustReport {
    return { server, provenSeqno: null, failedProofs: 0, lastFailure: null, laggingBy: null };
  }

  private log(line: string): void {
    this.options.log?.(line);
  }
}
