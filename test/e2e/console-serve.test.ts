// /console: the built files with their caching and security headers, a 301 from /console, a 503 that
// says how to build when there is nothing built, and no trace of it in the OpenAPI document.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleComponentFor } from '../../src/console/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { openTestStore, dropTestStore } from '../support/stores.js';
import type { Store } from '../../src/store/db.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'tonwatch-console-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function serve(dir: string): Promise<{ app: TestApp; store: Store }> {
  const store = await openTestStore('sqlite');
  const component = await consoleComponentFor({ dir })({} as never);
  return { app: await startTestApp({ store, components: [component] }), store };
}

describe('console built', () => {
  let t: { app: TestApp; store: Store };
  const dir = path.join(tmp, 'built');
  beforeAll(async () => {
    mkdirSync(path.join(dir, 'assets'), { recursive: true });
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console</title><script type="module" src="/console/assets/app-1a2b.js"></script>');
    writeFileSync(path.join(dir, 'assets', 'app-1a2b.js'), 'console.log("hi")');
    t = await serve(dir);
  });
  afterAll(async () => {
    await t.app.close();
    await dropTestStore(t.store);
  });

  it('serves index.html at /console/ with no-cache and a strict CSP', async () => {
    const res = await fetch(`${t.app.url}/console/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toContain('<title>console</title>');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('serves hashed assets as immutable', async () => {
    const res = await fetch(`${t.app.url}/console/assets/app-1a2b.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await res.text()).toBe('console.log("hi")');
  });

  it('redirects /console to /console/', async () => {
    const res = await fetch(`${t.app.url}/console`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/console/');
  });

  it('answers a missing file with the JSON 404 and never escapes the directory', async () => {
    const missing = await fetch(`${t.app.url}/console/nope.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toMatch(/no route|not found/i);
    const escape = await fetch(`${t.app.url}/console/..%2f..%2fpackage.json`);
    expect(escape.status).toBe(404);
  });

  it('is not part of the OpenAPI document', async () => {
    const doc = (await (await fetch(`${t.app.url}/docs/json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/console'))).toEqual([]);
  });
});

describe('console not built', () => {
  let t: { app: TestApp; store: Store };
  beforeAll(async () => {
    t = await serve(path.join(tmp, 'never-built'));
  });
  afterAll(async () => {
    await t.app.close();
    await dropTestStore(t.store);
  });

  it('answers 503 saying how to build it, for the page and any file', async () => {
    for (const p of ['/console/', '/console/assets/app.js']) {
      const res = await fetch(`${t.app.url}${p}`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: string; error_code: string };
      expect(body.error_code).toBe('console_not_built');
      expect(body.error).toContain('npm run build');
    }
    expect((await fetch(`${t.app.url}/console`, { redirect: 'manual' })).status).toBe(301);
  });
});
