// Timed waits that one call ends early: the pool's waits for a head or state change and its reconnect
// backoff, a wait for the next believed head, a replayed long-poll cut short by close.

export class Wakeup {
  private readonly waiting = new Set<() => void>();

  /** Resolves after `ms`, or at the next `wakeAll`, whichever comes first. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiting.add(done);
    });
  }

  /** Ends every wait in progress. */
  wakeAll(): void {
    for (const done of [...this.waiting]) done();
  }
}
