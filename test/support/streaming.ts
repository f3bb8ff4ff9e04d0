// For streaming tests that drive the event log themselves: a real event log over a real store, the
// real app with the streaming component on a real port, and builders of event batches. End-to-end
// tests on the devnet use the service instead.
import http from 'node:http';
import type { BlockHeader, PendingMessage, TraceModel, TransactionModel } from '../../src/chain/model.js';
import { MEMPOOL_BASE, makePosition, type ChainEvent, type EventBatch, type UnplacedEvent } from '../../src/bus/events.js';
import { StoreEventLog } from '../../src/bus/store-log.js';
import { loadConfig, type Config } from '../../src/config.js';
import { Registry } from 'prom-client';
import { captureLogger, startTestApp, type TestApp } from './app.js';
import type { Store } from '../../src/store/db.js';
import type { StreamHubOptions } from '../../src/streaming/hub.js';
import { createStreaming } from '../../src/streaming/index.js';
import type { V2HubOptions } from '../../src/streaming/v2/hub.js';
import type { FinalityTracker } from '../../src/pipeline/finality/tracker.js';

export interface StreamTestbed extends TestApp {
  store: Store;
  log: StoreEventLog;
  streaming: ReturnType<typeof createStreaming>;
  /** Appends and publishes a batch as the follower does. */
  append(batch: EventBatch): Promise<void>;
}

export interface StreamTestbedOptions {
  store: Store;
  config?: Partial<Config>;
  hub?: Partial<StreamHubOptions>;
  /** Streaming v2 hub overrides (keepalive, buffer). */
  v2?: Partial<V2HubOptions>;
  /** Provisional levels for Streaming v2. */
  finality?: FinalityTracker | null;
  retentionMs?: number;
  now?: () => number;
}

export async function startStreamTestbed(opts: StreamTestbedOptions): Promise<StreamTestbed> {
  const config = { ...loadConfig({}), ...opts.config };
  const log = new StoreEventLog(opts.store, { retentionMs: opts.retentionMs ?? 3_600_000, recentBatches: 8, now: opts.now });
  await log.open();
  const metrics = new Registry();
  const streaming = createStreaming({ events: log, config, metrics, logger: captureLogger().logger, finality: opts.finality ?? null }, opts.hub, opts.v2);
  const app = await startTestApp({ store: opts.store, components: [streaming], config, metrics });
  await streaming.start!();
  return {
    ...app,
    store: opts.store,
    log,
    streaming,
    append: async (batch) => {
      await opts.store.db.transaction().execute((trx) => log.append(trx, batch));
      log.published(batch);
    },
  };
}

/** Places events in masterchain block `seqno` (index order = array order). */
export function blockBatch(seqno: number, events: UnplacedEvent[]): EventBatch {
  const placed = events.map((e, i) => ({ ...e, position: makePosition(seqno, i), mcSeqno: seqno }) as ChainEvent);
  return { kind: 'block', mcSeqno: seqno, firstPosition: placed[0]!.position, lastPosition: placed.at(-1)!.position, events: placed };
}

export function mempoolBatch(seqno: number, slot: number, message: PendingMessage): EventBatch {
  const position = makePosition(seqno, MEMPOOL_BASE + slot);
  return { kind: 'mempool', mcSeqno: seqno, firstPosition: position, lastPosition: position, events: [{ type: 'mempool', message, position, mcSeqno: seqno }] };
}

export const blockEvent = (block: BlockHeader): UnplacedEvent => ({ type: 'block', block });
export const txEvent = (tx: TransactionModel): UnplacedEvent => ({ type: 'transaction', tx });
export const traceEvent = (trace: TraceModel): UnplacedEvent => ({ type: 'trace', trace });

/** A raw HTTP stream reader: status, headers and every body byte as text (chunking removed). */
export interface RawStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  text(): string;
  /** Resolves when the body text satisfies `cond`. */
  until(cond: (text: string) => boolean, ms?: number): Promise<string>;
  ended: Promise<void>;
  close(): void;
}

export function openRawStream(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      let text = '';
      const waiters = new Set<() => void>();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (const w of waiters) w();
      });
      const ended = new Promise<void>((done) => {
        res.on('end', done);
        res.on('close', done);
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: () => text,
        ended,
        close: () => req.destroy(),
        until: (cond, ms = 10_000) =>
          new Promise<string>((ok, fail) => {
            const check = () => {
              if (cond(text)) {
                clearTimeout(timer);
                waiters.delete(check);
                ok(text);
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`stream did not reach the expected state within ${ms} ms; got:\n${text.slice(-2000)}`));
            }, ms);
            waiters.add(check);
            check();
          }),
      });
    });
    req.on('error', reject);
    if (options.body !== undefined) req.end(options.body);
    else req.end();
  });
}

/** `event: message` frames of an SSE text, as {id, data}. */
export function sseMessages(text: string): Array<{ event: string; id: string | undefined; data: string | undefined }> {
  return text
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) => {
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        const i = line.indexOf(': ');
        if (i > 0) fields[line.slice(0, i)] = line.slice(i + 2);
      }
      return { event: fields.event ?? '', id: fields.id, data: fields.data };
    });
}
