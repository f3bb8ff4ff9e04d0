#!/usr/bin/env node
// Runs the built CLI (dist/, made by `npm install` / `npm run build`).
import('../dist/cli/main.js');
