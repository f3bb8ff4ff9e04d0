// The masterchain head the liteserver source publishes: every head a server reports is offered to the
// trust level, one offer at a time; a newly believed head is published (callback, waits) once its
// header is proven. A trust alarm stops it for good.
import type { BlockHeader } from '../model.js';
import type { ProvenReads } from './proven.js';
import type { BlockIdExt } from './tl/lite-api.js';
import type { LitePool } from './transport/pool.js';
import { Wakeup } from './transport/wakeup.js';
import type { TrustLog } from './trust/fast.js';
import { describeAlarm, type HeadTrust } from './trust/head-trust.js';

export class BelievedHead {
  private current: { id: BlockIdExt; header: BlockHeader } | null = null;
  private offers: Promise<void> = Promise.resolve();
  private readonly nextHead = new Wakeup();
  private stopped = false;
  /** Set for good by a trust alarm: why nothing from this network is believed any more. */
  alarm: string | null = null;

  constructor(
    private readonly pool: LitePool,
    private readonly trust: HeadTrust,
    private readonly reads: ProvenReads,
    /** Called with each newly believed head's seqno. */
    private readonly published: (seqno: number) => void,
    private readonly log?: TrustLog,
  ) {}

  get id(): BlockIdExt | null {
    return this.current?.id ?? null;
  }

  get header(): BlockHeader | null {
    return this.current?.header ?? null;
  }

  /** Offers `server`'s current head to the trust level (queued behind earlier offers). */
  offer(server: string): void {
    this.offers = this.offers.then(() => this.judge(server));
  }

  /** Resolves at the next published head, at stop, or after `ms`. */
  wait(ms: number): Promise<void> {
    return this.nextHead.wait(ms);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.nextHead.wakeAll();
    await this.offers.catch(() => {});
  }

  private async judge(server: string): Promise<void> {
    if (this.stopped || this.alarm) return;
    const id = this.pool.status().servers.find((s) => s.server === server)?.head;
    if (!id) return;
    let believed: BlockIdExt | null;
    try {
      believed = await this.trust.offer(server, id);
    } catch (err) {
      const alarm = this.trust.status().alarm;
      if (alarm) {
        this.alarm = `trust alarm: ${describeAlarm(alarm)}`;
        this.log?.('error', this.alarm, { alarm });
        this.nextHead.wakeAll();
      } else this.log?.('warn', `the trust level could not judge ${server}'s head: ${(err as Error).message}`);
      return;
    }
    if (!believed || (this.current && believed.seqno <= this.current.id.seqno)) return;
    let header: BlockHeader;
    try {
      header = await this.reads.header(believed);
    } catch (err) {
      this.log?.('warn', `believed head ${believed.seqno}: no server proved its header (${(err as Error).message}); the next head retries`);
      return;
    }
    this.current = { id: believed, header };
    this.nextHead.wakeAll();
    this.published(believed.seqno);
  }
}
