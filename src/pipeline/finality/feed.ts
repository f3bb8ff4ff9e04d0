// Feeds a FinalityTracker from a chain source: the mempool's messages as `pending`, non-final shard
// blocks as `confirmed`, dropped messages as `invalidated`, and a timer that enforces the tracker's
// bound. `finalized` comes from the follower, after each block commits (FollowerOptions.finality).
import type { ChainSource } from '../../chain/source.js';
import type { FinalityTracker } from './tracker.js';

export interface FinalityFeedOptions {
  source: ChainSource;
  tracker: FinalityTracker;
  /** How often the bound is enforced; default a tenth of the bound, at most 1 s. */
  sweepIntervalMs?: number;
  onError?: (err: unknown, what: string) => void;
}

/** What the feed can report of a source: whether it sees blocks before the masterchain commits them. */
export interface FinalityFeedStatus {
  pending: boolean;
  confirmed: boolean;
}

export class FinalityFeed {
  private readonly unsubscribe: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: FinalityFeedOptions) {}

  start(): void {
    if (this.timer) return;
    const { source, tracker } = this.options;
    const guard =
      <T>(what: string, work: (value: T) => void) =>
      (value: T) => {
        try {
          work(value);
        } catch (err) {
          this.options.onError?.(err, what);
        }
      };
    this.unsubscribe.push(
      source.onPendingMessage(
        guard('pending message', (m) =>
          tracker.pending({ boc: m.boc, origin: m.origin ?? 'mempool', involvedAccounts: m.involvedAccounts, opcodes: m.opcodes ?? [], transactions: m.emulated?.transactions, truncated: m.emulated?.truncated }),
        ),
      ),
    );
    if (source.onNonFinalBlock) this.unsubscribe.push(source.onNonFinalBlock(guard('non-final block', (b) => tracker.nonFinalBlock(b))));
    if (source.onMessageDropped) this.unsubscribe.push(source.onMessageDropped(guard('dropped message', (m) => tracker.dropped(m))));
    const every = this.options.sweepIntervalMs ?? Math.min(1000, Math.max(10, Math.floor(tracker.maxAgeMs / 10)));
    this.timer = setInterval(() => tracker.sweep(), every);
    this.timer.unref();
  }

  stop(): void {
    for (const u of this.unsubscribe.splice(0)) u();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  status(): FinalityFeedStatus {
    return { pending: true, confirmed: this.options.source.onNonFinalBlock !== undefined };
  }
}
