// `npm start` runs the build in dist/, not the sources: build it and start it the way the README does,
// so a file the build forgets (contract sources, console assets) fails here and not on a user's machine;
// and the test tooling (testing/ folders, the lying fake liteserver, the synthetic chain) is not in it,
// nor any module no entry point reaches.
// Every build here runs in a copy of the sources in a temporary directory: a test never writes the
// checkout, whose dist/ and web/dist/ may be serving a server the developer started before `npm test`.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort } from './support/ports.js';
import { ROOT, spawnService, type SpawnedService } from './support/service.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'tonwatch-build-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** What `npm run build` reads: the sources, the configs and the launcher. */
const BUILD_INPUTS = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'bin', 'src', 'web'];

/** Copies the sources to `dir` and runs `npm run build` there with this environment (NODE_ENV=test under vitest). */
function buildCopy(dir: string, env: NodeJS.ProcessEnv = process.env): string {
  for (const name of BUILD_INPUTS) {
    cpSync(path.join(ROOT, name), path.join(dir, name), { recursive: true, filter: (src) => !src.startsWith(path.join(ROOT, 'web', 'dist')) });
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, env, stdio: 'pipe' });
  return dir;
}

/** Every file of the checkout with its size and modification time (not node_modules, .git, the data dir, test screenshots). */
function checkoutFiles(dir = ROOT, out = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (dir === ROOT && ['node_modules', '.git', 'data', 'test-results'].includes(entry.name)) continue;
    if (entry.isDirectory()) checkoutFiles(file, out);
    else if (entry.isFile()) {
      const st = statSync(file);
      out.set(path.relative(ROOT, file), `${st.size}@${st.mtimeMs}`);
    }
  }
  return out;
}

/** Where what ships starts: the CLI (bin/tonwatch.js loads it) and the webhook sender's worker thread. */
const ENTRY_POINTS = ['cli/main.js', 'delivery/sender-thread.js'];
/** Modules (a file, or a folder ending in /) that ship with code no entry point reaches, each with the reason it may. */
const SHIPPED_UNREACHED: Record<string, string> = {
  'chain/liteserver/transport/in-process.js': "a transport of the liteserver client's API (its `transport` option); only tests pass it today",
  'chain/model.js': "the chain model's one function (hasBoc), a type guard for callers",
};
const allowedUnreached = (file: string) => Object.keys(SHIPPED_UNREACHED).some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));

/**
 * The built modules with code of their own (not only types or re-exports) that no entry point imports,
 * statically or dynamically: test tooling that escaped a testing/ folder, or dead code.
 */
function unreachedModules(dist: string): string[] {
  const modules = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js')).map((f) => f.split(path.sep).join('/'));
  const reached = new Set<string>();
  const queue = [...ENTRY_POINTS];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (reached.has(file) || !modules.includes(file)) continue;
    reached.add(file);
    for (const [, spec] of readFileSync(path.join(dist, file), 'utf8').matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      queue.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec!)));
    }
  }
  const ownCode = (file: string) =>
    readFileSync(path.join(dist, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
      .replace(/export\s*(\*(\s+as\s+\w+)?|\{[^}]*\})\s*from\s*['"][^'"]+['"];?|export\s*\{\s*\};?/g, '')
      .trim() !== '';
  return modules.filter((f) => !reached.has(f) && ownCode(f));
}

/** The console's page and the script it loads, as a browser would fetch them. */
async function consoleScript(url: string): Promise<{ src: string; status: number; body: string }> {
  const page = await fetch(`${url}/console/`);
  expect(page.status).toBe(200);
  const src = /<script[^>]+src="([^"]+)"/.exec(await page.text())?.[1];
  expect(src).toMatch(/^\/console\/assets\/.+\.js$/);
  const script = await fetch(`${url}${src}`);
  return { src: src!, status: script.status, body: await script.text() };
}

it('the built server (bin/tonwatch.js serve) serves the API and the console; a build beside it changes neither it nor the checkout', async () => {
  const before = checkoutFiles();
  const first = buildCopy(mkdtempSync(path.join(tmp, 'a-')));
  // The test tooling (testing/: the lying fake liteserver, test validator keys) is left out of what ships.
  const dist = path.join(first, 'dist');
  expect(existsSync(path.join(dist, 'chain/liteserver/server/archive-server.js'))).toBe(true);
  const shipped = readdirSync(dist, { recursive: true, withFileTypes: true });
  expect(shipped.filter((e) => e.isDirectory() && e.name === 'testing').map((e) => path.relative(dist, path.join(e.parentPath, e.name)))).toEqual([]);
  expect(shipped.filter((e) => e.isFile() && /\.test\.js$/.test(e.name)).map((e) => e.name)).toEqual([]);
  // Nor anywhere else: every built module with code is reached from an entry point (the synthetic
  // chain of the tests once shipped in chain/blocks/), apart from the few named with their reason.
  expect(unreachedModules(dist).filter((f) => !allowedUnreached(f))).toEqual([]);
  const port = await freePort();
  const service: SpawnedService = await spawnService({
    dataDir: mkdtempSync(path.join(tmp, 'data-')),
    command: [path.join(first, 'bin/tonwatch.js'), 'serve'],
    env: { PORT: String(port) },
  });
  try {
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(200);
    // The webhook sender thread starts from the built file too (dist/…/sender-thread.js).
    expect(JSON.stringify(await ready.json())).toContain('"sender":"thread"');
    const wallets = (await (await fetch(`${service.url}/devnet/wallets`)).json()) as Array<{ name: string }>;
    expect(wallets.map((w) => w.name)).toContain('alice');
    const dns = await fetch(`${service.url}/resolve/alice.ton`, { headers: { authorization: `Bearer ${service.adminKey}` } });
    expect(dns.status).toBe(200);

    // The built CLI finds the server by the same PORT, with no URL given.
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
    delete env.TONWATCH_URL;
    delete env.TONWATCH_CONFIG;
    const listed = execFileSync(process.execPath, [path.join(first, 'bin/tonwatch.js'), 'devnet', 'wallets'], { env, encoding: 'utf8' });
    expect(listed).toMatch(/^alice\s+v4\s+UQ/m);

    // The console's script loads; built under NODE_ENV=test it is the production bundle all the same.
    const served = await consoleScript(service.url);
    expect(served.status).toBe(200);

    // Another build while the server runs, from a shell that says development: same production bundle,
    // and the running server's console still loads.
    const second = buildCopy(mkdtempSync(path.join(tmp, 'b-')), { ...process.env, NODE_ENV: 'development' });
    expect(readdirSync(path.join(second, 'web/dist/assets')).sort()).toEqual(readdirSync(path.join(first, 'web/dist/assets')).sort());
    const after = await consoleScript(service.url);
    expect(after.src).toBe(served.src);
    expect(after.status).toBe(200);
    expect(after.body).toBe(served.body);
  } finally {
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  }
  // Nothing under the checkout was written: no build output, no source.
  expect(checkoutFiles()).toEqual(before);
}, 300_000);
