// The program name help prints is a command that works where the user is: `tonwatch` is not on PATH in a
// checkout, `npm run tonwatch -- …` and `npx tonwatch …` are.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../test/support/service.js';
import { programName } from './program.js';

describe('programName', () => {
  it('names the launcher the user ran', () => {
    expect(programName({ npm_lifecycle_event: 'tonwatch', npm_command: 'run-script' }, '/x/src/cli/main.ts')).toBe('npm run tonwatch --');
    expect(programName({ npm_lifecycle_event: 'npx', npm_command: 'exec' }, '/x/bin/tonwatch.js')).toBe('npx tonwatch');
    // installed globally (npm link): the bin's link on PATH
    expect(programName({}, '/usr/local/bin/tonwatch')).toBe('tonwatch');
    // node bin/tonwatch.js, tsx src/cli/main.ts: the checkout's form
    expect(programName({}, '/opt/tonwatch/bin/tonwatch.js')).toBe('npm run tonwatch --');
    expect(programName({ npm_lifecycle_event: 'test' }, '/x/src/cli/main.ts')).toBe('npm run tonwatch --');
  });

  it('`npm run tonwatch -- --help` tells commands in the form it was run with', () => {
    const out = execFileSync('npm', ['run', '--silent', 'tonwatch', '--', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      // npm and the scripts on this Node.js
      env: { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` },
      timeout: 60_000,
    });
    expect(out).toContain('usage: npm run tonwatch -- <command> [options]');
    expect(out).toContain('Run `npm run tonwatch -- <command> --help` for its options.');
    expect(out).not.toMatch(/^usage: tonwatch /m);
  });
});
