// A long-running command's end: the first SIGTERM/SIGINT stops it gracefully, a second exits at once.
// One signal often arrives more than once: a terminal's ^C reaches every process of its group, and the
// launchers (npm, scripts/node.mjs) pass it on too. Repeats within REPEAT_MS of the first are that one signal.

/** Signals this soon after the first count as the same one, passed on by a launcher. */
export const REPEAT_MS = 1000;

/** Resolves with the exit code once a signal has run `stop` (0, or 1 when stopping failed). */
export function stopOnSignal(stop: () => Promise<void>): Promise<number> {
  return new Promise<number>((resolve) => {
    let first: number | null = null;
    const onSignal = (signal: NodeJS.Signals) => {
      if (first !== null) {
        if (Date.now() - first < REPEAT_MS) return;
        console.error(`tonwatch: ${signal} again, exiting now`);
        process.exit(130);
      }
      first = Date.now();
      stop().then(
        () => resolve(0),
        (err) => {
          console.error(`tonwatch: shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
          resolve(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
