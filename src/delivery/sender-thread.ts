// Entry of the webhook sender thread (threaded-sender.ts): a Sender that takes built requests in
// batches, sends them, and answers their reports in batches, one message per event-loop turn.
import { parentPort, workerData } from 'node:worker_threads';
import { Sender, type SenderOptions } from './sender.js';
import { ATTEMPT_FIELDS, type FromThread, type ToThread } from './threaded-sender.js';

const port = parentPort!;
// Attempts the main thread made before it heard of a 410 may still be on their way: stop them all until told.
const sender = new Sender(workerData as SenderOptions, 'until-told');
/** Endpoint URLs by the slot the main thread gave them. */
const urls = new Map<number, string>();
let reports: Array<number | string | null> = [];
let flushQueued = false;

function flush(): void {
  flushQueued = false;
  const batch = reports;
  reports = [];
  port.postMessage({ type: 'reports', reports: batch } satisfies FromThread);
}

port.on('message', (msg: ToThread) => {
  if (msg.type === 'close') {
    void sender.close().then(() => port.postMessage({ type: 'closed' } satisfies FromThread));
    return;
  }
  if (msg.type === 'gone-heard') return sender.goneHeard(msg.upTo);
  if (msg.type === 'abort') return sender.abort();
  if (msg.reset) urls.clear();
  for (let i = 0; i < msg.urls.length; i += 2) urls.set(msg.urls[i] as number, msg.urls[i + 1] as string);
  const a = msg.attempts;
  for (let i = 0; i < a.length; i += ATTEMPT_FIELDS) {
    const id = a[i] as number;
    sender.sendBuilt(urls.get(a[i + 1] as number)!, a[i + 2] as string, a[i + 3] as number, id, (r) => {
      reports.push(id, r.statusCode, r.latencyMs, r.kind, r.error, r.retryAfterMs);
      if (!flushQueued) {
        flushQueued = true;
        // Reports that arrive in the same turn go back in one message.
        setImmediate(flush);
      }
    });
  }
});
port.postMessage({ type: 'ready' } satisfies FromThread);
