// WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever commit
// crosses the threshold and includes the only fsync of WAL mode with synchronous=NORMAL: a request
// that happens to commit then waits for tens of milliseconds. Instead the main connection never
// checkpoints and a worker thread, with its own connection to the same file, runs a PASSIVE
// checkpoint (PASSIVE never blocks readers or the writer) shortly after writes and on a slow timer.
// Shortly after, not on a fast timer of its own: a block's commit is followed by its fan-out, and a
// checkpoint copying that block's pages then takes a core from the clients reading it, while 150 ms
// later the process is quiet again. The slow timer runs only after a period without any checkpoint
// (an idle process, or a writer that never asks): a fixed one fell on fan-outs as often as not.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface CheckpointerOptions {
  /** How long after the last checkpoint one runs when no write asked for one. */
  intervalMs?: number;
  /** How long after a write (`written`) its checkpoint runs. */
  afterWriteMs?: number;
  /** WAL frames (pages) past which a checkpoint waits for the writer to restart the WAL. */
  restartFrames?: number;
  /** Called once if the worker fails; the caller turns automatic checkpoints back on. */
  onFailure(err: Error): void;
}

/** What the worker did, for /metrics and tests. */
export interface CheckpointStats {
  runs: number;
  /** Runs that found the WAL past the bound and made the writer wait for a restart. */
  restarts: number;
  /** Runs of the slow timer: a whole period passed without a checkpoint that a write asked for. */
  idleRuns: number;
  /** Frames in the WAL and frames copied into the database at the last run. */
  walFrames: number;
  checkpointedFrames: number;
}

// Plain CommonJS run with `eval`: works the same from src/ (tsx, vitest) and dist/.
// A PASSIVE checkpoint copies frames while the writer keeps appending, and the WAL only restarts
// when a write begins after a complete one: short periods keep each run small enough to complete.
// Under writes that never pause the WAL could still grow, so past a bound a RESTART checkpoint
// holds the writer back for a moment (milliseconds, once caught up) and the WAL starts over.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 2000');
let runs = 0;
let restarts = 0;
let idleRuns = 0;
let idle = null;
// The slow timer starts over at every checkpoint, whoever asked for it.
function armIdle() {
  clearTimeout(idle);
  idle = setTimeout(() => {
    idleRuns++;
    checkpoint();
  }, workerData.intervalMs);
}
function checkpoint() {
  armIdle();
  let [row] = db.pragma('wal_checkpoint(PASSIVE)');
  if (row.log > workerData.restartFrames) {
    // Caught up first, the restart holds the writer only for the frames of the last moment.
    db.pragma('wal_checkpoint(PASSIVE)');
    [row] = db.pragma('wal_checkpoint(RESTART)');
    restarts++;
  }
  runs++;
  parentPort.postMessage({ runs, restarts, idleRuns, walFrames: row.log, checkpointedFrames: row.checkpointed });
}
armIdle();
parentPort.on('message', (m) => {
  if (m === 'checkpoint') return checkpoint();
  if (m !== 'stop') return;
  try { checkpoint(); } finally { clearTimeout(idle); db.close(); parentPort.close(); }
});
`;

export class Checkpointer {
  readonly stats: CheckpointStats = { runs: 0, restarts: 0, idleRuns: 0, walFrames: 0, checkpointedFrames: 0 };
  private readonly worker: Worker;
  /** Settles when the thread ends, however it ends (stop, failure). */
  private readonly exited: Promise<void>;
  private stopped = false;
  private readonly afterWriteMs: number;
  /** A checkpoint asked for by a write and not run yet: later writes join it. */
  private asked: NodeJS.Timeout | null = null;

  constructor(file: string, options: CheckpointerOptions) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.afterWriteMs = options.afterWriteMs ?? 150;
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, intervalMs: options.intervalMs ?? 1000, restartFrames: options.restartFrames ?? 16_384 } });
    this.worker.unref();
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (m: CheckpointStats) => Object.assign(this.stats, m));
    this.worker.on('error', (err) => {
      if (!this.stopped) options.onFailure(err);
    });
  }

  /** The main connection committed a write: checkpoint it `afterWriteMs` later (once for many writes). */
  written(): void {
    if (this.asked !== null || this.stopped) return;
    this.asked = setTimeout(() => {
      this.asked = null;
      if (!this.stopped) this.worker.postMessage('checkpoint');
    }, this.afterWriteMs);
    this.asked.unref();
  }

  /** Runs a last checkpoint and ends the worker. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.asked) clearTimeout(this.asked);
    this.worker.postMessage('stop');
    const timeout = setTimeout(() => void this.worker.terminate(), 5000);
    await this.exited;
    clearTimeout(timeout);
  }
}
