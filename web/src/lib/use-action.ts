// Runs one user action at a time with its busy state and its error, so buttons disable while working
// and an API error shows where the action was started.
import { useState } from 'preact/hooks';

export interface Action {
  /** Name of the running action, or null. */
  busy: string | null;
  error: unknown;
  setError(err: unknown): void;
  run<T>(name: string, fn: () => Promise<T>): Promise<T | undefined>;
}

export function useAction(): Action {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  return {
    busy,
    error,
    setError,
    async run(name, fn) {
      setBusy(name);
      setError(null);
      try {
        return await fn();
      } catch (err) {
        setError(err);
        return undefined;
      } finally {
        setBusy(null);
      }
    },
  };
}

/** Polling stops its requests when the page goes away; that is not an error to show. */
export function reportUnlessAborted(err: unknown, report: (err: unknown) => void): void {
  if ((err as Error)?.name !== 'AbortError') report(err);
}
