// `tonwatch <command> …`: each command lives in src/cli/commands/<name>.ts and exports
// `run(argv): Promise<number>` (the exit code) and a one-line `summary`.
import { PROGRAM } from './program.js';

const commands: Record<string, () => Promise<CliCommand>> = {
  serve: () => import('./commands/serve.js'),
  decode: () => import('./commands/decode.js'),
  devnet: () => import('./commands/devnet.js'),
  keys: () => import('./commands/keys.js'),
  apps: () => import('./commands/apps.js'),
  chain: () => import('./commands/chain.js'),
};

export interface CliCommand {
  summary: string;
  run(argv: string[]): Promise<number>;
}

async function usage(): Promise<string> {
  const lines = [`usage: ${PROGRAM} <command> [options]`, '', 'commands:'];
  for (const [name, load] of Object.entries(commands)) {
    const summary = await load().then((m) => m.summary, () => '(not available)');
    lines.push(`  ${name.padEnd(8)} ${summary}`);
  }
  lines.push('', `Run \`${PROGRAM} <command> --help\` for its options.`);
  lines.push('Commands that talk to a running server (devnet, apps, chain) find it with --url, else $TONWATCH_URL,');
  lines.push('else at http://127.0.0.1:$PORT, PORT as `tonwatch serve` reads it (environment, TONWATCH_CONFIG; default 8080).');
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(await usage());
    return name ? 0 : 1;
  }
  const load = commands[name];
  if (!load) {
    console.error(`tonwatch: unknown command '${name}'\n\n${await usage()}`);
    return 1;
  }
  return (await load()).run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`tonwatch: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
