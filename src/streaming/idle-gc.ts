// Collects V8's young generation in the idle moment right after a live block is fanned out. A
// scavenge falls due wherever allocation happens to fill the young generation; with the follower in
// the same process (a block's decoding, traces, store writes) it fell inside a fan-out in 2 to 4 of
// 60 blocks of the streaming benchmark, and held every socket write of that block for its duration.
// Collected while the process waits for the next block, the follower's garbage of a block and that
// block's fan-out fit in the young generation together (when they are smaller than it), so the
// fan-out runs without a pause; the collections are the ones V8 would have made, moved to a time
// nothing waits for (about 1.5 per block instead of 1 at 10,000 tx/s: they are smaller).
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'minor' }) => void;

/** Below this share of the young generation in use there is nothing worth collecting. */
const MIN_FILL = 1 / 8;

/** V8's gc(): the one `node --expose-gc` gives, or one taken from a context made while the flag is on. */
function collector(): Collect | null {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as Collect;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as Collect) : null;
  } catch {
    return null;
  } finally {
    // contexts made later (vm, tests) get no gc() of their own
    v8.setFlagsFromString('--no-expose-gc');
  }
}

/** Share of the young generation's capacity in use. */
export function youngGenerationFill(): number {
  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  if (!space) return 0;
  const capacity = space.space_used_size + space.space_available_size;
  return capacity > 0 ? space.space_used_size / capacity : 0;
}

export class IdleScavenger {
  private scheduled = false;

  private constructor(
    private readonly collect: Collect,
    private readonly collected: () => void,
  ) {}

  /** Null where V8 gives no gc(): collection is then left to V8 alone. */
  static create(collected: () => void = () => {}): IdleScavenger | null {
    const collect = collector();
    return collect ? new IdleScavenger(collect, collected) : null;
  }

  /** After a live block is written: once the event loop is free, collect unless next to nothing is in use. */
  afterBlock(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (youngGenerationFill() < MIN_FILL) return;
      this.collect({ type: 'minor' });
      this.collected();
    });
  }
}
