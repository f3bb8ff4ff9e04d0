// Restarting with another TONWATCH_ADMIN_KEY revokes the key the variable held before: the real
// `tonwatch serve`, started twice on one data directory, says so in its banner and its log (naming the
// key id and why), and the old key answers 401 while the new one and the generated one still work.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { spawnService, type SpawnedService } from '../support/service.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'tonwatch-admin-key-'));
const running: SpawnedService[] = [];
afterAll(async () => {
  for (const s of running) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function stop(s: SpawnedService): Promise<void> {
  s.child.kill('SIGTERM');
  expect(await s.exited).toBe(0);
}

const status = async (url: string, key: string) => (await fetch(`${url}/admin/keys`, { headers: { authorization: `Bearer ${key}` } })).status;

it('says at start which admin key a new TONWATCH_ADMIN_KEY revoked, and why', async () => {
  const first = await spawnService({ dataDir, adminKey: 'tw_first_admin_key_0123456789' });
  running.push(first);
  expect(await status(first.url, first.adminKey)).toBe(200);
  const firstId = ((await (await fetch(`${first.url}/admin/keys`, { headers: { authorization: `Bearer ${first.adminKey}` } })).json()) as { keys: Array<{ id: string; origin: string }> }).keys.find((k) => k.origin === 'env')!.id;
  expect(first.output()).not.toMatch(/was revoked/);
  await stop(first);

  const second = await spawnService({ dataDir, adminKey: 'tw_second_admin_key_0123456789' });
  running.push(second);
  const said = `admin key ${firstId} (tw_firs…, from TONWATCH_ADMIN_KEY) was revoked at this start: TONWATCH_ADMIN_KEY now holds another key (one admin key from the environment at a time); requests with it now get 401`;
  await expect.poll(() => second.output(), { timeout: 10_000 }).toContain(`\n  ${said}`); // the banner
  const warning = second
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; keyId?: string })
    .find((l) => l.msg === said);
  expect(warning).toMatchObject({ level: 40, keyId: firstId }); // the log, at warning level
  expect(await status(second.url, 'tw_first_admin_key_0123456789')).toBe(401);
  expect(await status(second.url, second.adminKey)).toBe(200);
  await stop(second);
});
