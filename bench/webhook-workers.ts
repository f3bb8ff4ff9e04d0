// Webhook deliveries/s with 1, 2 and 3 delivery worker processes on one PostgreSQL (#22): the same
// producer as the webhooks benchmark's engine row (1,000 deliveries per transaction over 1,000
// ordering keys, backlog bounded), delivered by worker processes that share the keys through their
// leases. Within one run, so the ratios to one worker are what to read; on two cores shared with the
// database, the receiver and the producer, little gain is expected — the point is the shape.
import type { Benchmark, BenchRow } from './harness.js';
import { postgresReachable } from './lib/store.js';
import { engineThroughput, ReceiverProcess } from './webhooks.js';

const bench: Benchmark = {
  name: 'webhook-workers',
  description: 'Webhook deliveries/s with 1, 2 and 3 worker processes on one PostgreSQL (keys shared by leases); baseline: one worker process, same run.',
  issue: 22,
  budgetSeconds: 150,
  async run(ctx) {
    const rows: BenchRow[] = [];
    if (!(await postgresReachable())) {
      ctx.progress('PostgreSQL not reachable: nothing to measure');
      return rows;
    }
    const receiver = await ReceiverProcess.start();
    try {
      const total = Math.round(30_000 * ctx.scale);
      const runs: Array<{ workers: number; run: Awaited<ReturnType<typeof engineThroughput>> }> = [];
      for (const workers of [1, 2, 3]) {
        ctx.progress(`${workers} worker process(es): ${total} deliveries over 1,000 ordering keys`);
        runs.push({ workers, run: await engineThroughput(ctx, 'postgres', receiver, total, 15, workers) });
      }
      const one = runs[0]!.run.perSecond;
      for (const { workers, run } of runs) {
        rows.push({
          metric: `deliveries/s with ${workers} worker process${workers > 1 ? 'es' : ''} on one PostgreSQL`,
          value: run.perSecond,
          unit: 'deliveries/s',
          ...(workers > 1 ? { baseline: { name: '1 worker process, same run', value: one }, ratio: run.perSecond / one } : {}),
          note: `${run.delivered.toLocaleString('en-US')} delivered, ${run.pending} left pending; rate from the first tenth delivered to the last (whole run: ${Math.round(run.wholeRunPerSecond).toLocaleString('en-US')}/s); workers find rows by polling every 200 ms; lease 10 s, keys rebalanced at every renewal (2.5 s); every worker reads every new outbox row (and skips those of keys held elsewhere); the PostgreSQL server used ${run.serverCpuMicros === null ? 'an unmeasured amount' : `${Math.round(run.serverCpuMicros)} µs`} of CPU per delivery`,
        });
      }
    } finally {
      receiver.stop();
    }
    return rows;
  },
};

export default bench;
