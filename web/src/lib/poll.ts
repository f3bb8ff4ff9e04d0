// Live updates by polling (see docs/CONSOLE.md for why not a stream): run `load` now and every
// `intervalMs` while the tab is visible, once more when it becomes visible again, never two at once.
import { useEffect, useRef } from 'preact/hooks';

export function usePolling(load: (signal: AbortSignal) => Promise<void>, intervalMs: number, deps: unknown[]): void {
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let stopped = false;
    let running = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    const tick = async () => {
      clearTimeout(timer);
      if (stopped) return;
      if (!running && document.visibilityState !== 'hidden') {
        running = true;
        try {
          await loadRef.current(controller.signal);
        } catch {
          // the page shows its own error state; polling goes on
        } finally {
          running = false;
        }
      }
      if (!stopped) timer = setTimeout(tick, intervalMs);
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible') void tick();
    };
    document.addEventListener('visibilitychange', onVisible);
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
      controller.abort();
      document.removeEventListener('visibilitychange', onVisible);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
}
