// The pure rules of delivery: which addresses an endpoint may reach, the URL form, the retry
// schedule, Retry-After, and how each answer is judged.
import { describe, expect, it } from 'vitest';
import { judgeAttempt } from './judge.js';
import { GIVE_UP_AFTER_MS, MINUTE, parseRetryAfter, retryDelayMs } from './schedule.js';
import { checkEndpoint, classifyAddress, EndpointRefusedError, parseEndpointUrl, refusalFor } from './ssrf.js';
import type { Endpoint, PendingDelivery } from './types.js';

describe('endpoint addresses', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12::1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['0.0.0.0', 'reserved'],
    ['::', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['not-an-ip', 'reserved'],
  ])('%s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  it('loopback allowance covers loopback and private addresses, never link-local or metadata', () => {
    expect(refusalFor('127.0.0.1', true)).toBeNull();
    expect(refusalFor('10.1.2.3', true)).toBeNull();
    expect(refusalFor('169.254.169.254', true)).toMatch(/metadata/);
    expect(refusalFor('fe80::1', true)).toMatch(/link-local/);
    expect(refusalFor('127.0.0.1', false)).toMatch(/loopback.*TONWATCH_WEBHOOK_ALLOW_LOOPBACK/);
    expect(refusalFor('93.184.216.34', false)).toBeNull();
  });

  it('checks every address a name resolves to', async () => {
    const resolve = async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }];
    await expect(checkEndpoint('https://mixed.example/hook', { allowLoopback: false, resolve })).rejects.toThrow(/mixed\.example resolves to 10\.0\.0\.7 is a private/);
    await expect(checkEndpoint('https://mixed.example/hook', { allowLoopback: true, resolve })).resolves.toBe('https://mixed.example/hook');
  });

  it.each([
    ['', /non-empty/],
    ['example.com/hook', /absolute/],
    ['ftp://example.com/', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['http://u:p@example.com/', /credentials/],
    ['http://example.com/#x', /fragment/],
    [`http://example.com/${'a'.repeat(2100)}`, /2048/],
  ])('refuses the URL %j', (url, reason) => {
    expect(() => parseEndpointUrl(url)).toThrow(EndpointRefusedError);
    expect(() => parseEndpointUrl(url)).toThrow(reason);
  });
});

describe('retry schedule', () => {
  it('waits 1 min after attempts 1–10, 5 min up to 20, 10 min up to 30, then an hour', () => {
    expect([1, 10, 11, 20, 21, 30, 31, 100].map(retryDelayMs)).toEqual([1, 1, 5, 5, 10, 10, 60, 60].map((m) => m * MINUTE));
  });

  it('reads Retry-After as seconds or an HTTP date, capped at a day', () => {
    const now = Date.UTC(2026, 0, 1, 12);
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(['30', '60'], now)).toBe(30_000);
    expect(parseRetryAfter(new Date(now + 90_000).toUTCString(), now)).toBe(90_000);
    expect(parseRetryAfter(new Date(now - 90_000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfter('99999999', now)).toBe(24 * 60 * MINUTE);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});

describe('judging an attempt', () => {
  const now = Date.UTC(2026, 0, 1);
  const endpoint = (): Endpoint => ({ id: 1, producer: 'p', owner: 'o', url: 'http://x/', token: 't', secret: 's', previousSecret: null, previousSecretUntil: null, status: 'online', statusReason: null, statusUpdatedAt: 0, lastOnlineAt: now, failedAttempts: 0, createdAt: 0 });
  const row = (): PendingDelivery => ({ id: 1, endpointId: 1, orderingKey: 'k', messageId: 'm', eventType: 'e', body: '{}', meta: null, attempts: 0, nextAttemptAt: now, firstFailedAt: null, createdAt: now });
  const report = (statusCode: number | null, retryAfterMs: number | null = null) => ({ statusCode, error: statusCode === null ? 'ECONNRESET' : null, retryAfterMs, latencyMs: 1, kind: 'http' as const });

  it.each([
    [200, 'delivered'],
    [204, 'delivered'],
    [299, 'delivered'],
    [301, 'failed'],
    [400, 'failed'],
    [404, 'failed'],
    [408, 'retrying'],
    [410, 'held'],
    [429, 'retrying'],
    [500, 'retrying'],
    [503, 'retrying'],
    [null, 'retrying'],
  ])('HTTP %s → %s', (status, result) => {
    expect(judgeAttempt(endpoint(), row(), report(status), now)).toBe(result);
  });

  it('moves the endpoint offline on a failure, online on the next success, suspended on 410', () => {
    const e = endpoint();
    const r = row();
    judgeAttempt(e, r, report(500), now);
    expect([e.status, e.failedAttempts, r.attempts, r.nextAttemptAt - now, r.firstFailedAt]).toEqual(['offline', 1, 1, MINUTE, now]);
    judgeAttempt(e, r, report(503, 5000), now + MINUTE);
    expect(r.nextAttemptAt - (now + MINUTE)).toBe(5000);
    judgeAttempt(e, r, report(200), now + 2 * MINUTE);
    expect([e.status, e.failedAttempts, e.lastOnlineAt]).toEqual(['online', 0, now + 2 * MINUTE]);
    judgeAttempt(e, row(), report(410), now + 3 * MINUTE);
    expect([e.status, e.statusReason]).toEqual(['suspended', 'the receiver answered 410 Gone']);
  });

  it('never retries sooner than a second, whatever Retry-After says', () => {
    const r = row();
    judgeAttempt(endpoint(), r, report(429, 0), now);
    expect(r.nextAttemptAt - now).toBe(1000);
  });

  it('gives up after 3 days of failures', () => {
    const e = endpoint();
    const r = { ...row(), attempts: 70, firstFailedAt: now - GIVE_UP_AFTER_MS + 1 };
    expect(judgeAttempt(e, r, report(500), now)).toBe('retrying');
    expect(judgeAttempt(e, r, report(500), now + 1)).toBe('failed');
    expect(e.status).toBe('offline'); // its last success is recent: offline, not suspended
  });
});
