// Who is signed in. The key lives in memory and in this tab's sessionStorage only (gone when the tab
// closes; never in localStorage, a URL or a log), so a reload keeps the session and nothing persists.

export type Role = 'admin' | 'app';

export interface Session {
  role: Role;
  /** The key the user signed in with: the admin key or an application's API token. */
  key: string;
  /** The application in view: the token's own, or the one an admin picked. */
  appId: number | null;
  /** Application API tokens this session has seen (created, regenerated or pasted), by app id. */
  appTokens: Record<string, string>;
}

const STORAGE_KEY = 'tonwatch.console.session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Session;
    if ((s.role !== 'admin' && s.role !== 'app') || typeof s.key !== 'string') return null;
    return { role: s.role, key: s.key, appId: typeof s.appId === 'number' ? s.appId : null, appTokens: s.appTokens ?? {} };
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  try {
    if (session) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage may be disabled (private mode): the session then lives in memory only.
  }
}

/** The key that reads and writes the application's invoices in this session, if it has one. */
export function invoiceKey(session: Session): string | null {
  if (session.role === 'app') return session.key;
  return session.appId !== null ? (session.appTokens[String(session.appId)] ?? null) : null;
}
