// The overlay acceptance run (issue 34): `tonwatch serve` on the liteserver source, overlay on, pointed at
// `tonwatch devnet serve` (1 s blocks), both child processes on real UDP over loopback; 1,000 external
// messages sent through the devnet (one in 20 large — a 1000-character comment or a ~6 KB payload — so it
// travels by RaptorQ FEC). Measured: the share the service's mempool stream shows before their block, messages
// shown that the devnet never admitted, and the lead time from hearing a message to walking its block.
import { MempoolReader, quantile, sendMessages, startOverlayNetwork, watchDevnetBlocks } from '../test/support/overlay-run.js';
import { until } from '../test/support/webhooks.js';
import type { Benchmark, BenchRow } from './harness.js';

const MESSAGES = 1000;

const bench: Benchmark = {
  name: 'overlay',
  description: 'Pending messages heard on the TON overlay: share of 1,000 devnet external messages (5% by FEC) on the mempool stream before their block, false pendings, lead time heard → block walked.',
  issue: 34,
  budgetSeconds: 420,
  async run(ctx) {
    const count = Math.max(50, Math.round(MESSAGES * ctx.scale));
    ctx.progress('starting tonwatch devnet serve and tonwatch serve (liteserver source, overlay on)');
    const net = await startOverlayNetwork({ blockIntervalMs: 1000 });
    try {
      const mempool = await MempoolReader.open(net.service.url);
      ctx.progress(`sending ${count} messages through the devnet`);
      const blocks = watchDevnetBlocks(net);
      const started = Date.now();
      const sent = await sendMessages(net, count, { largeEvery: 20, concurrency: 6 });
      const sendSeconds = (Date.now() - started) / 1000;
      ctx.progress(`sent in ${sendSeconds.toFixed(1)} s; waiting for the stream and the blocks`);
      await until(async () => sent.hashes.every((h) => mempool.seen.has(h)), 30_000, 'every message on the mempool stream').catch(() => {});
      await until(async () => (await net.readyz()).checks.chain.overlay.pending.landed + (await net.readyz()).checks.chain.overlay.pending.late >= count, 60_000, 'every message landed').catch(() => {});
      mempool.close();
      blocks.stop();
      const overlay = (await net.readyz()).checks.chain.overlay;
      const admitted = new Set(sent.hashes);
      const heard = sent.hashes.filter((h) => mempool.seen.has(h));
      const heardLarge = [...sent.large].filter((h) => mempool.seen.has(h));
      const foreign = [...mempool.seen.keys()].filter((h) => !admitted.has(h));
      const sendToStream = heard.map((h) => mempool.seen.get(h)! - sent.sentAt.get(h)!);
      const share = heard.length / count;
      // Against block production: the message is in the first devnet block produced after its admission, which
      // happened between the send request and its answer; so its block is the first seen after one or the other.
      const firstAfter = (t: number) => blocks.times.find((b) => b.at > t)?.at;
      const leadsFrom = (when: Map<string, number>) => heard.flatMap((h) => {
        const at = firstAfter(when.get(h)!);
        return at === undefined ? [] : [at - mempool.seen.get(h)!];
      });
      const low = leadsFrom(sent.requestedAt);
      const high = leadsFrom(sent.sentAt);
      const before = (l: number[]) => (l.length ? (l.filter((x) => x > 0).length / l.length) * 100 : 0);
      const rows: BenchRow[] = [
        { metric: `messages on the mempool stream before the service walked their block (of ${count} admitted)`, value: share * 100, unit: '%', target: '≥ 99.9 %', met: share >= 0.999 && overlay.pending.late === 0,
          note: `${heard.length} heard; ${overlay.pending.late} heard only after a block held them; sent in ${sendSeconds.toFixed(1)} s` },
        { metric: `large messages (FEC) on the stream (of ${sent.large.size})`, value: sent.large.size ? (heardLarge.length / sent.large.size) * 100 : 0, unit: '%', target: '≥ 99.9 %', met: heardLarge.length === sent.large.size,
          note: `${overlay.fec_decodes} FEC broadcasts decoded` },
        { metric: 'messages on the stream the devnet did not admit', value: foreign.length, unit: 'messages', target: '0', met: foreign.length === 0 },
        { metric: 'messages on the stream before their block was produced, lower bound', value: before(low), unit: '%', target: '≥ 99.9 %', met: before(low) >= 99.9,
          note: 'block: the first devnet block seen (polled every 50 ms) after the send request began — maybe before the devnet admitted the message' },
        { metric: 'messages on the stream before their block was produced, upper bound', value: before(high), unit: '%',
          note: 'block: the first devnet block seen after the send request was answered — maybe the block after the message\'s' },
        { metric: 'lead time stream event → block produced, p50 (lower / upper bound)', value: low.length ? quantile(low, 0.5) : NaN, unit: 'ms',
          note: `upper bound ${high.length ? quantile(high, 0.5) : NaN} ms; negative: the event came after the block` },
        { metric: 'lead time stream event → block produced, p1 — the worst 1 % (lower / upper bound)', value: low.length ? quantile(low, 0.01) : NaN, unit: 'ms',
          note: `upper bound ${high.length ? quantile(high, 0.01) : NaN} ms` },
        { metric: 'lead time heard → block walked, p50', value: overlay.lead_ms?.p50 ?? NaN, unit: 'ms', note: 'the service\'s own measure (/readyz, tonwatch_overlay_lead_seconds), which includes how far its follower lags; 1 s devnet blocks' },
        { metric: 'lead time heard → block walked, p99', value: overlay.lead_ms?.p99 ?? NaN, unit: 'ms' },
        { metric: 'devnet admission → mempool stream event, p50', value: sendToStream.length ? quantile(sendToStream, 0.5) : NaN, unit: 'ms', note: 'devnet broadcast, UDP, FEC decode, 200 ms emulation budget, SSE' },
        { metric: 'devnet admission → mempool stream event, p99', value: sendToStream.length ? quantile(sendToStream, 0.99) : NaN, unit: 'ms' },
        { metric: 'published without a trace (emulation failed or over its 200 ms budget)', value: overlay.pending.published ? (overlay.pending.unemulated / overlay.pending.published) * 100 : 0, unit: '%',
          note: 'a wallet message whose seqno is ahead of the proven state cannot be emulated; filters then see its destination' },
      ];
      return rows;
    } finally {
      await net.close();
    }
  },
};

export default bench;
