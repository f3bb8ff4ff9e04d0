// Hash routes (#/invoices/…): the server serves one static page, and a route never carries a secret.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** Path segments after "#/", e.g. ['invoices', '<id>']. */
  parts: string[];
}

function current(): Route {
  const hash = location.hash.replace(/^#\/?/, '');
  return { parts: hash.split('/').filter(Boolean).map(decodeURIComponent) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const onChange = () => setRoute(current());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function href(...parts: Array<string | number>): string {
  return '#/' + parts.map((p) => encodeURIComponent(String(p))).join('/');
}

export function navigate(...parts: Array<string | number>): void {
  location.hash = href(...parts);
}
