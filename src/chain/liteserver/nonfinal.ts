// Non-final shard blocks from liteservers (docs/FINALITY.md): polls liteServer.nonfinal.getPendingShardBlocks,
// fetches each new block with liteServer.getBlock and checks it against its id (root hash of the BoC's
// root, sha256 of the bytes) before it is shown. What cannot be checked — that validators signed it — is
// not claimed. A pool whose servers refuse the method leaves the source finalized-only: said in its status,
// never retried in a loop.
import { decodeBlock } from '../decode/block.js';
import type { NonFinalBlock } from '../source.js';
import { LiteServerError } from './tl/envelope.js';
import type { BlockIdExt } from './tl/lite-api.js';
import { LitePoolUnavailableError, type LitePool } from './transport/pool.js';
import { shardIdHex } from './trust/block-ref.js';
import { checkFullBlock } from './trust/blocks.js';
import { hashHex } from './trust/merkle.js';

/** `unknown` until a server answered; `unsupported` once every try was refused by the servers themselves. */
export interface NonFinalStatus {
  state: 'unknown' | 'supported' | 'unsupported';
  reason: string | null;
  /** Blocks fetched and checked, and blocks refused because their contents did not match their id. */
  shown: number;
  disproven: number;
}

/** Refusals by servers (not transport failures) in a row before the source says it has no non-final blocks. */
const REFUSALS_BEFORE_UNSUPPORTED = 3;
/** Block ids remembered as shown (a shard makes a few per second). */
const SEEN_LIMIT = 4096;

export class NonFinalPoller {
  private readonly listeners = new Set<(block: NonFinalBlock) => void>();
  private readonly seen = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private refusals = 0;
  private polling = false;
  private readonly state: NonFinalStatus = { state: 'unknown', reason: null, shown: 0, disproven: 0 };

  constructor(
    private readonly pool: LitePool,
    private readonly pollMs: number,
    private readonly log: (message: string) => void = () => {},
  ) {}

  subscribe(listener: (block: NonFinalBlock) => void): () => void {
    this.listeners.add(listener);
    if (!this.timer && this.state.state !== 'unsupported') this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer?.unref();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  status(): NonFinalStatus {
    return { ...this.state };
  }

  /** One round: the pending ids, then each one not shown yet, fetched and checked. */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      // a server without the method answers with an error: its answer, not a failure of the server
      const pending = await this.pool.query('getPendingShardBlocks', { mode: 0 }, { refusalIsAnswer: true });
      this.refusals = 0;
      if (this.state.state === 'unknown') this.state.state = 'supported';
      for (const [ids, signed] of [[pending.signedBlocks, true], [pending.candidates, false]] as const) {
        for (const id of ids) await this.show(id, signed);
      }
    } catch (err) {
      const refusal = refusedByServers(err);
      if (refusal !== null && this.state.state !== 'supported' && ++this.refusals >= REFUSALS_BEFORE_UNSUPPORTED) {
        Object.assign(this.state, { state: 'unsupported', reason: `the liteservers refuse liteServer.nonfinal.getPendingShardBlocks (${refusal}): finalized blocks only` });
        this.log(this.state.reason!);
        this.stop();
      }
      // transport failures and a supporting server's passing error: the next round asks again
    } finally {
      this.polling = false;
    }
  }

  private async show(id: BlockIdExt, signed: boolean): Promise<void> {
    const key = `${hashHex(id.rootHash)}:${signed}`;
    if (this.seen.has(key)) return;
    const { data } = await this.pool.query('getBlock', { id });
    try {
      checkFullBlock(data, id, 'nonfinal.block');
    } catch (err) {
      this.state.disproven++;
      this.log(`a non-final block did not match its id: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.remember(key);
    const decoded = decodeBlock(data);
    const block: NonFinalBlock = {
      id: { workchain: id.workchain, shard: shardIdHex(id.shard), seqno: id.seqno, rootHash: hashHex(id.rootHash), fileHash: hashHex(id.fileHash) },
      genUtime: decoded.header.genUtime,
      signed,
      transactions: decoded.transactions,
      boc: data,
    };
    this.state.shown++;
    for (const listener of this.listeners) {
      try {
        listener(block);
      } catch {
        // one listener's failure must not stop the others
      }
    }
  }

  private remember(key: string): void {
    if (this.seen.size >= SEEN_LIMIT) this.seen.delete(this.seen.values().next().value!);
    this.seen.add(key);
  }
}

/** The servers' own words when every server asked refused the query (not a transport failure), else null. */
function refusedByServers(err: unknown): string | null {
  if (err instanceof LiteServerError) return err.message;
  if (err instanceof LitePoolUnavailableError && err.failures.length > 0 && err.failures.every((f) => f.error instanceof LiteServerError)) {
    return [...new Set(err.failures.map((f) => f.error.message))].join('; ');
  }
  return null;
}
