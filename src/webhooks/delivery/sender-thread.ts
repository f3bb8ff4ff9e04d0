// Entry of the webhook sender thread (threaded-sender.ts): a Sender that takes attempts in
// batches and answers their reports in batches, one message per event-loop turn.
import { parentPort, workerData } from 'node:worker_threads';
import { Sender, type AttemptEndpoint, type SenderOptions } from './sender.js';
import { ATTEMPT_FIELDS, type FromThread, type ToThread } from './threaded-sender.js';

const port = parentPort!;
const sender = new Sender(workerData as SenderOptions);
/** Endpoints by the slot the main thread gave them. */
const endpoints = new Map<number, AttemptEndpoint>();
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
  if (msg.reset) endpoints.clear();
  for (let i = 0; i < msg.endpoints.length; i += 2) endpoints.set(msg.endpoints[i] as number, msg.endpoints[i + 1] as AttemptEndpoint);
  const a = msg.attempts;
  for (let i = 0; i < a.length; i += ATTEMPT_FIELDS) {
    const id = a[i] as number;
    const delivery = { messageId: a[i + 2] as string, eventType: a[i + 3] as string, body: a[i + 4] as string };
    sender.send(endpoints.get(a[i + 1] as number)!, delivery, a[i + 5] as number, (r) => {
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
