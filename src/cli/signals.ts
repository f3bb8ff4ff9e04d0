// A long-running command's end: the first SIGTERM/SIGINT stops it gracefully, a second exits at once.

/** Resolves with the exit code once a signal has run `stop` (0, or 1 when stopping failed). */
export function stopOnSignal(stop: () => Promise<void>): Promise<number> {
  return new Promise<number>((resolve) => {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        console.error(`tonwatch: ${signal} again, exiting now`);
        process.exit(130);
      }
      signalled = true;
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
