// The overlay acceptance run (issue 34): `tonwatch serve` on the liteserver source, overlay on, pointed at
// `tonwatch devnet serve` (1 s blocks), both child processes on real UDP over loopback; 1,000 external
// messages sent through the devnet (one in 20 large — a 1000-character comment or a ~6 KB payload — so it
// travels by RaptorQ FEC; a third of those an exchange's payout batch: one highload-wallet-v2 external of 40 transfers, ~3 KB). Measured: whether each message's pending event reached a client of the service
// before any block-based event of its trace from the same service (the target: what a user of a pending
// stream can rely on), and before the devnet produced its block (the devnet's own clock, to the ms);
// messages shown that the devnet never admitted; lead times.
import { normalizedHashOfMessage } from '../src/chain/message-boc.js';
import { Cell } from '@ton/core';
import { BATCH_TRANSFERS, devnetTimelines, MempoolReader, PAYOUT_WALLET, quantile, SENDERS, sendMessages, startOverlayNetwork, TraceLevels } from '../test/support/overlay-run.js';
import { until } from '../test/support/webhooks.js';
import type { Benchmark, BenchRow } from './harness.js';

const MESSAGES = 1000;

const bench: Benchmark = {
  name: 'overlay',
  description: 'Pending messages heard on the TON overlay: share of 1,000 devnet external messages (5% by FEC) whose pending event came before any block-based event of their trace from the same service, and before the devnet produced their block; false pendings; lead times.',
  issue: 34,
  budgetSeconds: 420,
  async run(ctx) {
    const count = Math.max(50, Math.round(MESSAGES * ctx.scale));
    ctx.progress('starting tonwatch devnet serve and tonwatch serve (liteserver source, overlay on)');
    const net = await startOverlayNetwork({ blockIntervalMs: 1000 });
    try {
      const mempool = await MempoolReader.open(net.service.url);
      const wallets = await net.devnetApi<Array<{ name: string; address: string }>>('/devnet/wallets');
      const address = (name: string) => wallets.find((w) => w.name === name)!.address;
      const levels = await TraceLevels.open(net.service.url, [...SENDERS, PAYOUT_WALLET].map(address));
      ctx.progress(`sending ${count} messages through the devnet`);
      const started = Date.now();
      const sent = await sendMessages(net, count, { largeEvery: 20, concurrency: 6 });
      const sendSeconds = (Date.now() - started) / 1000;
      ctx.progress(`sent in ${sendSeconds.toFixed(1)} s; waiting for the streams and the blocks`);
      const norms = new Map<string, string>();
      const normOf = (h: string) => norms.get(h);
      await until(async () => sent.hashes.every((h) => mempool.seen.has(h)), 30_000, 'every message on the mempool stream').catch(() => {});
      for (const [h, boc] of mempool.bocs) norms.set(h, normalizedHashOfMessage(Cell.fromBase64(boc))!);
      await until(async () => sent.hashes.every((h) => { const n = normOf(h); return n !== undefined && levels.arrived.get(n)?.finalized !== undefined; }), 60_000, 'every trace finalized on the v2 stream').catch(() => {});
      const ended = levels.ended;
      mempool.close();
      levels.close();
      const overlay = (await net.readyz()).checks.chain.overlay;
      const metrics = await (await fetch(`${net.service.url}/metrics`)).text();
      const finalityCounts = metrics.split('\n').filter((l) => /^tonwatch_(finality_(events|reports_ignored)_total|stream_slow_consumer_closes_total)/.test(l)).join(', ');
      const timelines = await devnetTimelines(net, sent.hashes);
      const admitted = new Set(sent.hashes);
      const heard = sent.hashes.filter((h) => mempool.seen.has(h));
      const heardLarge = [...sent.large].filter((h) => mempool.seen.has(h));
      const heardBatches = [...sent.batches].filter((h) => mempool.seen.has(h));
      const batchBytes = heardBatches.map((h) => Buffer.from(mempool.bocs.get(h)!, 'base64').length);
      const foreign = [...mempool.seen.keys()].filter((h) => !admitted.has(h));
      const pct = (n: number, of: number) => (of ? (n / of) * 100 : 0);
      const q = (v: number[], p: number) => (v.length ? quantile(v, p) : NaN);

      // (a) the service's own order, on one v2 connection: a trace's pending event before its first block-based one
      const v2 = sent.hashes.map((h) => levels.arrived.get(normOf(h) ?? '') ?? {});
      const blockEvent = (l: { confirmed?: number; finalized?: number }) => Math.min(l.confirmed ?? Infinity, l.finalized ?? Infinity);
      const pendingFirst = v2.filter((l) => l.pending !== undefined && l.pending < blockEvent(l)).length;
      const withConfirmed = v2.filter((l) => l.confirmed !== undefined).length;
      const pendingBeforeFinal = v2.filter((l) => l.pending !== undefined && l.finalized !== undefined && l.pending < l.finalized).length;
      const leadToBlockEvent = v2.flatMap((l) => (l.pending !== undefined && blockEvent(l) < Infinity ? [blockEvent(l) - l.pending] : []));
      // the mempool stream (another connection, through the event log) against the same v2 block events
      const mempoolFirst = sent.hashes.filter((h) => {
        const at = mempool.seen.get(h);
        return at !== undefined && at < blockEvent(levels.arrived.get(normOf(h) ?? '') ?? {});
      }).length;
      // (c) against the devnet's clock: when it produced (showed, signed) the shard block holding the message
      const produced = sent.hashes.flatMap((h) => {
        const t = timelines.get(h);
        const at = mempool.seen.get(h);
        return t?.produced_at_ms != null && at !== undefined ? [{ h, lead: t.produced_at_ms - at, admitted: t.admitted_at_ms, producedAt: t.produced_at_ms }] : [];
      });
      const beforeProduced = produced.filter((p) => p.lead > 0).length;
      const admissionToStream = heard.flatMap((h) => { const t = timelines.get(h); return t ? [mempool.seen.get(h)! - t.admitted_at_ms] : []; });
      const admissionToProduced = produced.map((p) => p.producedAt - p.admitted);
      const emulatedBatches = [...sent.batches].filter((h) => levels.emulated.has(normOf(h) ?? '')).length;
      const emulatedAll = sent.hashes.filter((h) => levels.emulated.has(normOf(h) ?? '')).length;
      const rows: BenchRow[] = [
        { metric: `messages whose pending event came before any block event of their trace from the service (of ${count} admitted)`, value: pct(pendingFirst, count), unit: '%', target: '≥ 99.9 %', met: pendingFirst / count >= 0.999,
          note: `one v2 SSE connection (types transactions, min_finality pending, the sending wallets), so the order is the service's; of the traces, ${v2.filter((l) => l.pending !== undefined).length} had a pending event, ${withConfirmed} a confirmed one, ${v2.filter((l) => l.finalized !== undefined).length} a finalized one${ended ? '; the server ended the stream' : ''}${levels.other.length ? `; other frames: ${levels.other.slice(0, 3).join(' | ')}` : ''}; ${finalityCounts}` },
        { metric: 'the same on the mempool stream (/v2/sse/mempool, another connection) against the v2 block events', value: pct(mempoolFirst, count), unit: '%',
          note: 'two connections: the mempool event goes through the event log, the confirmed one does not, so a message published the moment its block was seen can arrive a few ms after' },
        { metric: 'pending before the service\'s finalized event of the trace', value: pct(pendingBeforeFinal, count), unit: '%' },
        { metric: `large messages (FEC) on the stream (of ${sent.large.size})`, value: pct(heardLarge.length, sent.large.size), unit: '%', target: '≥ 99.9 %', met: heardLarge.length === sent.large.size,
          note: `${overlay.fec_decodes} FEC broadcasts decoded` },
        { metric: `highload-wallet payout batches on the stream (of ${sent.batches.size}, ${BATCH_TRANSFERS} transfers each)`, value: pct(heardBatches.length, sent.batches.size), unit: '%', target: '≥ 99.9 %', met: heardBatches.length === sent.batches.size,
          note: `one external message of the devnet's \`${PAYOUT_WALLET}\` wallet (highload wallet v2, query ids) per batch; ${q(batchBytes, 0) } to ${q(batchBytes, 1)} bytes as BoC, so by FEC (above 768 bytes)` },
        { metric: 'messages on the stream the devnet did not admit', value: foreign.length, unit: 'messages', target: '0', met: foreign.length === 0 },
        { metric: 'lead time pending event → first block event of the trace (v2), p50', value: q(leadToBlockEvent, 0.5), unit: 'ms', note: `p1 (the worst 1 %) ${q(leadToBlockEvent, 0.01)} ms` },
        { metric: 'on the mempool stream before the devnet produced their block (devnet clock)', value: pct(beforeProduced, produced.length), unit: '%',
          note: `of ${produced.length}; produced: the devnet made and signed the shard block holding it (GET /devnet/messages/:hash); the devnet admits a message until the moment it makes the block, so one admitted just before cannot be heard before it` },
        { metric: 'lead time mempool stream event → block produced (devnet clock), p50', value: q(produced.map((p) => p.lead), 0.5), unit: 'ms', note: `p1 ${q(produced.map((p) => p.lead), 0.01)} ms; negative: after the block; admission → block produced p50 ${q(admissionToProduced, 0.5)} ms` },
        { metric: 'devnet admission → mempool stream event, p50', value: q(admissionToStream, 0.5), unit: 'ms', note: `p99 ${q(admissionToStream, 0.99)} ms; devnet broadcast, UDP, FEC decode, emulation (budget 200 ms), event log, SSE` },
        { metric: 'heard → published (the service\'s own measure), p50', value: overlay.publish_ms?.p50 ?? NaN, unit: 'ms', note: `p99 ${overlay.publish_ms?.p99 ?? NaN} ms` },
        { metric: `pending events carrying the emulated transaction (v2), all messages / payout batches (of ${sent.batches.size})`, value: pct(emulatedAll, count), unit: '%',
          note: `payout batches ${pct(emulatedBatches, sent.batches.size).toFixed(1)} %: one message of ${BATCH_TRANSFERS} transfers from the ${PAYOUT_WALLET} wallet (highload wallet v2, ~3 KB, by FEC); without it a pending event still comes, with \`transactions: []\`` },
        { metric: 'published with a trace (emulated on proven state, or on the state the wallet\'s previous pending message left)', value: pct(overlay.pending.published - overlay.pending.unemulated, overlay.pending.published), unit: '%',
          note: `${overlay.pending.flushed} published before their emulation ended because a non-final block held them; the rest without a trace: refused by the wallet's code on both states (its seqno ahead of the proven state while its predecessor was not emulated first: heard out of order — a FEC message arrives later than a simple one sent after it — or itself unemulated), or past the budget; the senders send several messages a block each` },
        { metric: 'lead time heard → block walked, p50', value: overlay.lead_ms?.p50 ?? NaN, unit: 'ms', note: `p99 ${overlay.lead_ms?.p99 ?? NaN} ms; the service's own measure (/readyz, tonwatch_overlay_lead_seconds), which includes how far its follower lags; sent in ${sendSeconds.toFixed(1)} s` },
      ];
      return rows;
    } finally {
      await net.close();
    }
  },
};

export default bench;
