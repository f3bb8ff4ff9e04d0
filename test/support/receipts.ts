// What a webhook receiver got, checked against what was enqueued: every delivery at least once and
// nothing else, each repeat with its first attempt's webhook-id and Idempotency-Key, and per ordering
// key the first receipts in enqueue order. Shared by the delivery cluster test and the cluster's
// acceptance test.
import { expect } from 'vitest';
import type { ReceivedRequest } from './webhooks.js';

export interface ExpectedDelivery {
  /** The request body exactly as sent. */
  body: string;
  /** Ordering key (per-key order is checked), or null for deliveries in no order. */
  key: string | null;
}

/** Checks `requests` (in arrival order) against `expected` (in enqueue order); returns the number of repeats. */
export function checkReceipts(requests: readonly ReceivedRequest[], expected: readonly ExpectedDelivery[]): number {
  const byBody = new Map<string, ReceivedRequest[]>();
  for (const r of requests) {
    let list = byBody.get(r.body);
    if (!list) byBody.set(r.body, (list = []));
    list.push(r);
  }
  const known = new Map(expected.map((e) => [e.body, e]));
  expect(expected.filter((e) => !byBody.has(e.body)).map((e) => e.body), 'deliveries never received').toEqual([]);
  expect([...byBody.keys()].filter((body) => !known.has(body)), 'deliveries received but not expected').toEqual([]);
  for (const list of byBody.values()) {
    expect(new Set(list.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(list.map((r) => r.headers['idempotency-key'])).size).toBe(1);
  }
  // each body's place among its key's deliveries
  const placeInKey = new Map<string, number>();
  const perKey = new Map<string, number>();
  for (const e of expected) {
    if (e.key === null) continue;
    const n = perKey.get(e.key) ?? 0;
    placeInKey.set(e.body, n);
    perKey.set(e.key, n + 1);
  }
  const next = new Map<string, number>();
  for (const r of requests) {
    const key = known.get(r.body)!.key;
    if (key === null) continue;
    const place = placeInKey.get(r.body)!;
    const due = next.get(key) ?? 0;
    // A repeat (a place before the next one due) is allowed; a first receipt must be the next in order.
    if (place >= due) {
      expect({ key, place }).toEqual({ key, place: due });
      next.set(key, due + 1);
    }
  }
  return requests.length - byBody.size;
}
