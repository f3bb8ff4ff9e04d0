// Entry of the webhook sender thread (threaded-sender.ts): a Sender that takes attempts in
// batches and answers their reports in batches, one message per event-loop turn.
import { parentPort, workerData } from 'node:worker_threads';
import { Sender, type AttemptReport, type SenderOptions } from './sender.js';
import type { FromThread, ToThread } from './threaded-sender.js';

const port = parentPort!;
const sender = new Sender(workerData as SenderOptions);
let reports: Array<number | AttemptReport> = [];
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
  for (const a of msg.attempts) {
    sender.send(a.endpoint, a.delivery, a.nowMs, (report) => {
      reports.push(a.id, report);
      if (!flushQueued) {
        flushQueued = true;
        // Reports that arrive in the same turn go back in one message.
        setImmediate(flush);
      }
    });
  }
});
port.postMessage({ type: 'ready' } satisfies FromThread);
