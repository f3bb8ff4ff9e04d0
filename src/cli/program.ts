// How the user ran this CLI, for help and hints to show commands that work as typed: `tonwatch` is on PATH
// only when installed globally (npm link, npm install -g); in a checkout it is `npm run tonwatch -- …` (any
// Node.js, from source) or `npx tonwatch …` (the build in dist/).
import path from 'node:path';

/** The command that starts this CLI, e.g. "npm run tonwatch --", "npx tonwatch" or "tonwatch". */
export function programName(env: NodeJS.ProcessEnv = process.env, script: string = process.argv[1] ?? ''): string {
  if (env.npm_lifecycle_event === 'tonwatch') return 'npm run tonwatch --';
  // npx (npm exec) runs the package's bin
  if (env.npm_command === 'exec') return 'npx tonwatch';
  if (path.basename(script) === 'tonwatch') return 'tonwatch';
  // a launcher of its own (node bin/tonwatch.js, tsx src/cli/main.ts…): the form that works in the checkout
  return 'npm run tonwatch --';
}

export const PROGRAM = programName();
