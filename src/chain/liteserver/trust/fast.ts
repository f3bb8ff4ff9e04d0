// Trust level `fast`: a masterchain head is believed when at least two liteservers report the same block
// (seqno, root hash and file hash). When only one server has reported a seqno, the others that have reached
// it are asked for it (lookupBlock, header proof checked) before anything is believed. With one server
// configured its head is believed as is, and the start says so. Everything below the head is proven by
// hashes (backward links, the walk); `secure` replaces this with the validator-signature chain.
import type { LitePool } from '../transport/pool.js';
import type { BlockIdExt } from '../tl/lite-api.js';
import { checkBlockHeaderProof } from './blocks.js';
import { ProofError } from './errors.js';
import { hashHex } from './merkle.js';
import type { HeadTrust, TrustStatus } from './head-trust.js';

const MC_SHARD = -(1n << 63n);
/** Seqnos of reports kept below the believed head (servers lag each other by a few blocks). */
const KEEP_BELOW_HEAD = 64;
/** Seqnos of reports kept at most. */
const MAX_SEQNOS_KEPT = 256;

export type TrustLog = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: object) => void;

export interface FastTrustOptions {
  pool: Pick<LitePool, 'queryWithServer' | 'status' | 'demote'>;
  log?: TrustLog;
}

const idKey = (id: BlockIdExt) => `${hashHex(id.rootHash)}:${hashHex(id.fileHash)}`;
const short = (id: BlockIdExt) => hashHex(id.rootHash).slice(0, 12);

export class FastTrust implements HeadTrust {
  readonly level = 'fast' as const;
  private head: BlockIdExt | null = null;
  private waiting: string | null = 'no liteserver has reported a head yet';
  /** seqno → server → the block it says is there. */
  private readonly reports = new Map<number, Map<string, BlockIdExt>>();

  constructor(private readonly options: FastTrustOptions) {}

  async start(): Promise<void> {
    const servers = this.options.pool.status().servers.length;
    if (servers === 1) {
      this.options.log?.('warn', 'trust level fast with one liteserver: its head is believed without a second server to agree; configure two or more');
    }
  }

  status(): TrustStatus {
    return { level: 'fast', head: this.head, keyBlock: null, progress: null, waiting: this.waiting, alarm: null };
  }

  async offer(server: string, id: BlockIdExt): Promise<BlockIdExt | null> {
    if (id.workchain !== -1 || id.shard !== MC_SHARD) return this.head;
    if (this.head && id.seqno <= this.head.seqno) return this.head;
    this.record(server, id);
    if (this.options.pool.status().servers.length === 1) return this.believe(id);

    let verdict = this.verdict(id.seqno);
    // A second opinion from each server that has reached this seqno and not said anything about it yet.
    while (verdict.kind === 'alone') {
      const asked = [...(this.reports.get(id.seqno)?.keys() ?? [])];
      const other = await this.ask(id.seqno, asked);
      if (other === 'none') break;
      verdict = this.verdict(id.seqno);
    }
    if (verdict.kind === 'agreed') return this.believe(verdict.id, verdict.outvoted);
    this.waiting = verdict.kind === 'alone'
      ? `only ${server} reports masterchain block ${id.seqno}; waiting for a second liteserver to reach it`
      : `liteservers disagree on masterchain block ${id.seqno}: ${verdict.detail}; no head is believed until two agree`;
    if (verdict.kind === 'split') this.options.log?.('warn', this.waiting, { seqno: id.seqno });
    return this.head;
  }

  private record(server: string, id: BlockIdExt): void {
    let at = this.reports.get(id.seqno);
    if (!at) this.reports.set(id.seqno, (at = new Map()));
    at.set(server, id);
    // While nothing is believed (servers disagree) the reports would grow with every head: keep the newest.
    if (this.reports.size > MAX_SEQNOS_KEPT) this.reports.delete(Math.min(...this.reports.keys()));
  }

  /**
   * Asks one server not in `asked` for block `seqno`; a reply whose header proof fails demotes it. 'none'
   * when no other server can answer now.
   */
  private async ask(seqno: number, asked: string[]): Promise<'answered' | 'none'> {
    const exclude = [...asked];
    for (;;) {
      let reply;
      try {
        reply = await this.options.pool.queryWithServer('lookupBlock', { mode: 1, id: { workchain: -1, shard: MC_SHARD, seqno } }, { minSeqno: seqno, exclude, timeoutMs: 5_000 });
      } catch {
        // No other server can answer now (LitePoolUnavailableError) or it lost the block: the next offer asks again.
        return 'none';
      }
      try {
        if (reply.response.id.seqno !== seqno || reply.response.id.workchain !== -1) {
          throw new ProofError('fast.lookup', 'mismatch', `lookupBlock(${seqno}) answered seqno ${reply.response.id.seqno}`);
        }
        checkBlockHeaderProof(reply.response.headerProof, reply.response.id, 'fast.header');
      } catch (err) {
        if (!(err instanceof ProofError)) throw err;
        this.options.pool.demote(reply.server, err.message);
        exclude.push(reply.server);
        continue;
      }
      this.record(reply.server, reply.response.id);
      return 'answered';
    }
  }

  private verdict(seqno: number):
    | { kind: 'agreed'; id: BlockIdExt; outvoted: string[] }
    | { kind: 'alone' }
    | { kind: 'split'; detail: string } {
    const at = this.reports.get(seqno) ?? new Map<string, BlockIdExt>();
    const groups = new Map<string, { id: BlockIdExt; servers: string[] }>();
    for (const [server, id] of at) {
      const g = groups.get(idKey(id)) ?? { id, servers: [] };
      g.servers.push(server);
      groups.set(idKey(id), g);
    }
    const ranked = [...groups.values()].sort((a, b) => b.servers.length - a.servers.length);
    const best = ranked[0];
    if (!best) return { kind: 'alone' };
    if (best.servers.length >= 2 && (ranked[1]?.servers.length ?? 0) < best.servers.length) {
      return { kind: 'agreed', id: best.id, outvoted: ranked.slice(1).flatMap((g) => g.servers) };
    }
    if (ranked.length === 1) return { kind: 'alone' };
    return { kind: 'split', detail: ranked.map((g) => `${g.servers.join(', ')} say ${short(g.id)}…`).join('; ') };
  }

  private believe(id: BlockIdExt, outvoted: string[] = []): BlockIdExt {
    for (const server of outvoted) {
      this.options.pool.demote(server, `reported masterchain block ${id.seqno} as ${short(this.reports.get(id.seqno)!.get(server)!)}…, other liteservers agree on ${short(id)}…`);
    }
    if (!this.head || id.seqno > this.head.seqno) this.head = id;
    this.waiting = null;
    for (const seqno of this.reports.keys()) if (seqno < this.head.seqno - KEEP_BELOW_HEAD) this.reports.delete(seqno);
    return this.head;
  }
}
