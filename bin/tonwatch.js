#!/usr/bin/env node
// Runs the built CLI (dist/, made by `npm install` / `npm run build`), on a Node.js that `engines` allows.
import { supportsNode, unsupportedNodeMessage } from './node-version.js';

if (supportsNode(process.versions.node)) {
  import('../dist/cli/main.js');
} else {
  console.error(`${unsupportedNodeMessage(process.version)}, or start it with \`npm start\` (on Linux x64 it runs Node.js 26 from the npm registry).`);
  process.exitCode = 1;
}
