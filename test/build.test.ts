// `npm start` runs the build in dist/, not the sources: build it and start it the way the README does,
// so a file the build forgets (contract sources, console assets) fails here and not on a user's machine.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT, spawnService } from './support/service.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'tonwatch-build-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('the built server (bin/tonwatch.js serve) starts on the devnet and serves the API and the console', async () => {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'pipe' });
  const service = await spawnService({ dataDir, command: [path.join(ROOT, 'bin/tonwatch.js'), 'serve'] });
  try {
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(200);
    // The webhook sender thread starts from the built file too (dist/…/sender-thread.js).
    expect(JSON.stringify(await ready.json())).toContain('"sender":"thread"');
    const wallets = (await (await fetch(`${service.url}/devnet/wallets`)).json()) as Array<{ name: string }>;
    expect(wallets.map((w) => w.name)).toContain('alice');
    const dns = await fetch(`${service.url}/resolve/alice.ton`, { headers: { authorization: `Bearer ${service.adminKey}` } });
    expect(dns.status).toBe(200);
    const console = await fetch(`${service.url}/console/`);
    expect(console.status).toBe(200);
    expect(await console.text()).toContain('<html');
  } finally {
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  }
}, 180_000);
