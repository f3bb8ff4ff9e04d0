// What the overlay listener of a liteserver source tells operators: a note in the `chain` check of
// `/readyz` (its address, peers, what it heard and dropped, lead times; or why it is off) and its
// `/metrics`. The overlay never makes the service unready: without it, pending streams are only quieter.
import { Gauge, type Registry } from 'prom-client';
import type { LiteserverOverlayStatus } from '../chain/liteserver/chain.js';
import { countedTotals } from './liteserver-report.js';

export const OVERLAY_OFF_NOTE =
  'off: TONWATCH_OVERLAY_ADDRESS is not set, so the mempool stream and mempool webhooks carry only the messages this process sends (liteservers keep no mempool); set it to a public ip:port and open that UDP port to hear every external message before its block';

/** The `overlay` part of the liteserver source's /readyz check. */
export function overlayHealth(status: LiteserverOverlayStatus | undefined): Record<string, unknown> {
  if (!status) return { enabled: false, note: OVERLAY_OFF_NOTE };
  const p = status.pending;
  return {
    enabled: true,
    address: status.address,
    peers: status.peers,
    ...(status.waiting ? { note: `no overlay peers yet: ${status.waiting}` } : {}),
    broadcasts: status.broadcasts,
    fec_decodes: status.fecDecodes,
    fec_in_flight: status.fecInFlight,
    external_messages: status.externalMessages,
    pending: { published: p.published, unemulated: p.unemulated, flushed: p.flushed, duplicate: p.duplicate, invalid: p.invalid, dropped: p.dropped, late: p.late, queued: p.queued, landed: p.landed },
    lead_ms: p.leadMs,
    publish_ms: p.publishMs,
    packets_dropped: status.packetsDropped,
    broadcasts_dropped: status.broadcastsDropped,
  };
}

/** The overlay's gauges and counters, read from the source's status at each scrape. */
export function registerOverlayMetrics(registry: Registry, read: () => LiteserverOverlayStatus | undefined): void {
  const registers = [registry];
  const gauge = (name: string, help: string, value: (s: NonNullable<LiteserverOverlayStatus>) => number | null) => new Gauge({
    name, help, registers,
    collect() {
      const s = read();
      const v = s ? value(s) : null;
      if (v !== null) this.set(v);
    },
  });
  new Gauge({ name: 'tonwatch_overlay_enabled', help: '1 when the overlay listener runs (TONWATCH_OVERLAY_ADDRESS is set)', registers, collect() {
    this.set(read() ? 1 : 0);
  } });
  gauge('tonwatch_overlay_peers', 'Members of the public overlay of workchain 0 kept as neighbours', (s) => s.peers);
  gauge('tonwatch_overlay_fec_in_flight', 'FEC broadcasts being assembled', (s) => s.fecInFlight);
  gauge('tonwatch_overlay_pending_queued', 'Heard external messages waiting for emulation', (s) => s.pending.queued);
  new Gauge({
    name: 'tonwatch_overlay_lead_seconds',
    help: 'Time from hearing an external message on the overlay to walking the block that holds it (last 4096 messages), by quantile',
    labelNames: ['quantile'], registers,
    collect() {
      this.reset();
      const lead = read()?.pending.leadMs;
      if (!lead) return;
      this.set({ quantile: '0.5' }, lead.p50 / 1000);
      this.set({ quantile: '0.99' }, lead.p99 / 1000);
    },
  });
  const totals = (name: string, help: string, labels: string[], rows: (s: NonNullable<LiteserverOverlayStatus>) => Array<[Record<string, string>, number]>) =>
    countedTotals(registry, name, help, labels, () => {
      const s = read();
      return s ? rows(s) : [];
    });
  totals('tonwatch_overlay_broadcasts_total', 'Overlay broadcasts by result: received (simple broadcasts and FEC parts), valid, duplicate, dropped', ['result'], (s) => [
    [{ result: 'received' }, s.broadcasts.received + s.broadcasts.fecParts], [{ result: 'valid' }, s.broadcasts.valid],
    [{ result: 'duplicate' }, s.broadcasts.duplicate], [{ result: 'dropped' }, s.broadcasts.dropped],
  ]);
  totals('tonwatch_overlay_fec_decodes_total', 'FEC (RaptorQ) broadcasts decoded', [], (s) => [[{}, s.fecDecodes]]);
  totals('tonwatch_overlay_pending_total', 'Heard external messages by fate: published (pending), unemulated (published without a trace), flushed (published before its emulation ended: a non-final block held it), duplicate, invalid, dropped (queue full), late (a block held it first), landed (a walked block held it)', ['result'],
    (s) => (['published', 'unemulated', 'flushed', 'duplicate', 'invalid', 'dropped', 'late', 'landed'] as const).map((r) => [{ result: r }, s.pending[r]]));
  totals('tonwatch_overlay_dropped_total', 'Datagrams and broadcasts refused, by layer and reason', ['layer', 'reason'], (s) => [
    ...Object.entries(s.packetsDropped).map(([reason, n]): [Record<string, string>, number] => [{ layer: 'adnl', reason }, n]),
    ...Object.entries(s.broadcastsDropped).map(([reason, n]): [Record<string, string>, number] => [{ layer: 'broadcast', reason }, n]),
  ]);
}
