// Which Node.js runs tonwatch: package.json's `engines`. Every entry point (bin/tonwatch.js,
// scripts/node.mjs) checks it before anything loads the native SQLite driver, which crashes an older
// Node.js with a bare "Segmentation fault" (20 reached end of life in April 2026; better-sqlite3 needs 22).
import { readFileSync } from 'node:fs';

/** The `engines.node` range of package.json, e.g. ">=22.14". */
export const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;

/** Whether Node.js `version` ("22.14.0" or "v22.14.0") is at least the `>=` range's version. */
export function supportsNode(version, range = engines) {
  const wanted = range.replace(/^>=\s*/, '').split('.').map(Number);
  const have = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < wanted.length; i++) {
    if ((have[i] ?? 0) !== wanted[i]) return (have[i] ?? 0) > wanted[i];
  }
  return true;
}

/** What an entry point says on a Node.js it cannot run on, before it exits. */
export function unsupportedNodeMessage(version, range = engines) {
  return `tonwatch needs Node.js ${range} (22, 24 or 26); this is ${version}, on which its SQLite driver crashes. Install a supported Node.js and run the command again`;
}
