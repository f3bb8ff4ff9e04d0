// Numbers that are not numbers (issue 25): every integer query parameter the issue named, on the real
// service, answers 400 naming the parameter for Infinity, -Infinity, 1e400 and values ≥ 2^63.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test/support/service.js';
import { numberProblem } from './finite-numbers.js';

const ACCOUNT = `0:${'11'.repeat(32)}`;

/** [path with the parameter last, parameter] — the routes issue 25 lists. */
const ROUTES: Array<[string, string]> = [
  ['/webhooks/1/logs?offset=', 'offset'],
  ['/webhooks/1/account-tx/subscriptions?offset=', 'offset'],
  ['/webhooks/1/account-tx/subscriptions?limit=', 'limit'],
  ['/webhooks/1/msg-opcode/subscriptions?offset=', 'offset'],
  ['/webhooks/1/msg-opcode/subscriptions?limit=', 'limit'],
  ['/api/v1/services/invoices/app/1/webhook/1/logs?offset=', 'offset'],
  ['/api/v1/services/invoices/app/1/webhook/1/logs?limit=', 'limit'],
  ['/api/v1/services/invoices?offset=', 'offset'],
  ['/api/v1/services/invoices/some-id/qr?size=', 'size'],
  [`/account/${ACCOUNT}/history?limit=`, 'limit'],
  [`/account/${ACCOUNT}/audit?since=`, 'since'],
  ['/admin/keys?offset=', 'offset'],
];

const NOT_NUMBERS = ['Infinity', '-Infinity', '1e400', '9223372036854775808', '18446744073709551616'];

describe('integer parameters given numbers that are not numbers', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    await svc?.close();
  });

  it.each(ROUTES)('%s… answers 400 naming %s', async (path, param) => {
    for (const value of NOT_NUMBERS) {
      const res = await svc.api(path + encodeURIComponent(value));
      const body = (await res.json()) as { error: string; field?: string };
      expect({ value, status: res.status }).toEqual({ value, status: 400 });
      expect(body.field).toBe(param);
      expect(body.error).toContain(`'${param}'`);
    }
    expect((await svc.api('/healthz')).status).toBe(200);
  });

  it.each([['GET', '/webhooks/Infinity/logs'], ['POST', '/webhooks/Infinity/subscribe-msg-opcode/0x0f8a7ea5'], ['POST', '/webhooks/1e400/unsubscribe-msg-opcode/0x0f8a7ea5']])(
    'path parameters are checked the same way, in intersected schemas too: %s %s',
    async (method, path) => {
      const res = await svc.api(path, { method });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { field?: string }).field).toBe('webhook_id');
    },
  );

  it('numbers in range still pass', async () => {
    const res = await svc.api('/admin/keys?offset=0&limit=1e1');
    expect(res.status).toBe(200);
  });
});

describe('numberProblem', () => {
  const field = { part: 'querystring' as const, name: 'offset', integer: true, minimum: 0 };
  it.each([
    ['Infinity', true],
    ['-Infinity', true],
    ['1e400', true],
    ['9007199254740992', true],
    ['9007199254740991', false],
    ['-9007199254740991', false],
    ['12', false],
    ['1.5', false], // not an integer: Ajv's own message says so
    ['abc', false], // not a number: Ajv's own message says so
    ['', false],
  ])('%s → problem %s', (raw, problem) => {
    expect(numberProblem(raw, field) !== null).toBe(problem);
  });
  it('names the bounds', () => {
    expect(numberProblem('Infinity', { ...field, maximum: 10 })).toBe('must be an integer from 0 to 10');
    expect(numberProblem('1e400', { ...field, integer: false })).toMatch(/finite number/);
    expect(numberProblem('1e300', { ...field, integer: false })).toBeNull();
  });
});
