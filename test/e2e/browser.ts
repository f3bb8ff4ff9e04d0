// Support for the console's browser tests: a fresh build of web/ into a temp dir, headless Debian
// Chromium driven by playwright-core, a record of every request the page makes, and the check that
// each one is a documented public API call (a path and method of the OpenAPI document).
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { ROOT } from '../support/service.js';

export { launchChromium } from '../support/chromium.js';
export const SCREENSHOTS = path.join(ROOT, 'test-results', 'console');

/** Builds the console from web/ (as `npm run build` does) into a fresh directory. */
export async function buildConsole(): Promise<string> {
  const outDir = mkdtempSync(path.join(tmpdir(), 'tonwatch-console-build-'));
  await build({ configFile: path.join(ROOT, 'web', 'vite.config.ts'), build: { outDir, emptyOutDir: true }, logLevel: 'error' });
  return outDir;
}

export interface RecordedRequest {
  method: string;
  url: string;
}

/** Every request the page sends, from the first navigation on. */
export function recordRequests(page: Page): RecordedRequest[] {
  const seen: RecordedRequest[] = [];
  page.on('request', (r) => seen.push({ method: r.method(), url: r.url() }));
  return seen;
}

/** Requests that are neither the console's own static files nor a path + method of the OpenAPI document. */
export function undocumentedCalls(requests: RecordedRequest[], origin: string, openapi: { paths: Record<string, Record<string, unknown>> }): string[] {
  const routes = Object.entries(openapi.paths).map(([template, ops]) => ({
    re: new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
    methods: new Set(Object.keys(ops).map((m) => m.toUpperCase())),
  }));
  const bad: string[] = [];
  for (const r of requests) {
    if (r.url.startsWith('blob:') || r.url.startsWith('data:')) continue;
    const url = new URL(r.url);
    if (url.origin !== origin) {
      bad.push(`${r.method} ${r.url} (another origin)`);
      continue;
    }
    if (url.pathname === '/console' || url.pathname.startsWith('/console/')) {
      if (r.method !== 'GET') bad.push(`${r.method} ${url.pathname}`);
      continue;
    }
    const documented = routes.some((route) => route.re.test(url.pathname) && route.methods.has(r.method));
    if (!documented) bad.push(`${r.method} ${url.pathname}`);
  }
  return bad;
}

/** Saves a full-page screenshot as test-results/console/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
