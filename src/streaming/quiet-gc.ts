// Young-generation collections when the streams are quiet. A block's fan-out leaves V8's young
// generation nearly full (the block's events, then its frames), and V8 collects it as soon as the event
// loop is free again: right after the fan-out, while the clients read what it wrote. Data already handed
// to the kernel is not delayed, but on a small machine the collection's threads take the cores that
// co-located readers (and the kernel's loopback) need, and the p99 of that block grows by the pause.
// So, after a fan-out that wrote, once its readers have had `delayMs`, this collects the young generation
// if the next block would otherwise fill it; V8's own trigger then rarely fires in a fan-out's wake.
// The young generation must hold a block's allocation for that: `npm start` starts Node.js with
// YOUNG_GENERATION_FLAGS (V8's default semi-space, 16 MB, fills within one block at 10,000 tx/s, and
// V8 shrinks a larger one after a full collection unless its minimum is as large).
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Node.js flags the server starts with (package.json's start script; the streaming benchmark's server). */
export const YOUNG_GENERATION_FLAGS = ['--min-semi-space-size=32', '--max-semi-space-size=32'];

/** V8 schedules its own young collection when the young generation is this full (its --scavenge-task-trigger). */
const V8_TRIGGER = 0.8;
/** Blocks differ: the next interval is taken to add this much more than the most one added lately. */
const MARGIN = 1.5;

type Collect = () => void;

/**
 * A young-generation collection on demand: V8's `gc({ type: 'minor' })`, from `--expose-gc` when the
 * process was started with it, else from a context created while the flag is briefly on (the function
 * is not put on this process's global object). Null when V8 offers neither.
 */
export function minorCollection(): Collect | null {
  if (made === undefined) made = makeMinorCollection();
  return made;
}

let made: Collect | null | undefined;

function makeMinorCollection(): Collect | null {
  const exposed = (globalThis as { gc?: (options: object) => void }).gc;
  if (typeof exposed === 'function') return () => exposed({ type: 'minor' });
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? () => (gc as (options: object) => void)({ type: 'minor' }) : null;
  } catch {
    return null;
  } finally {
    // contexts made later (vm, tests) get no gc() of their own
    v8.setFlagsFromString('--no-expose-gc');
  }
}

/** Bytes in use in the young generation, and how many fill it (V8 grows it up to its maximum under load). */
export function youngGeneration(): { used: number; capacity: number } {
  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  // space_size counts both semi-spaces; a semi-space is what fills before a collection
  return space ? { used: space.space_used_size, capacity: space.space_size / 2 } : { used: 0, capacity: 0 };
}

export interface QuietCollectorOptions {
  /** After a fan-out, how long its readers get before the collection (ms). */
  delayMs: number;
  /** Told of each collection made (the hub's metric). */
  onCollect?: () => void;
  /** The collection itself (tests); minorCollection() by default. */
  collect?: Collect | null;
  /** The young generation's use (tests); youngGeneration() by default. */
  measure?: () => { used: number; capacity: number };
}

export class QuietCollector {
  private readonly collect: Collect | null;
  private readonly measure: () => { used: number; capacity: number };
  private timer: NodeJS.Timeout | null = null;
  /** Young-generation bytes in use when last looked at, and the most one interval between looks added. */
  private usedBefore = 0;
  private perInterval = 0;

  constructor(private readonly options: QuietCollectorOptions) {
    this.collect = options.collect === undefined ? minorCollection() : options.collect;
    this.measure = options.measure ?? youngGeneration;
  }

  /** A fan-out wrote to clients: look again once they have read (one look pending at a time). */
  afterFanout(): void {
    if (this.collect === null || this.timer !== null) return;
    this.timer = setTimeout(() => this.look(), this.options.delayMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private look(): void {
    this.timer = null;
    const { used, capacity } = this.measure();
    // what one interval (about a block) adds; a collection since the last look makes it read low, not high
    this.perInterval = Math.max(this.perInterval * 0.75, used - this.usedBefore);
    if (used + this.perInterval * MARGIN >= capacity * V8_TRIGGER) {
      this.collect!();
      this.options.onCollect?.();
      this.usedBefore = this.measure().used;
    } else {
      this.usedBefore = used;
    }
  }
}
