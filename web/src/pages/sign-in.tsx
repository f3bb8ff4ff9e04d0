// Sign-in with the admin key or an application's API token. The key is checked with one documented
// read (admin: the key list; application: its own application) and kept for this tab only.
import { useState } from 'preact/hooks';
import { ApiFailure, get } from '../api/client.js';
import { listApps } from '../api/apps.js';
import { Field, valueOf } from '../components/ui.js';
import type { Session } from '../session.js';

/** Which kind of key this is, or why it is not usable. */
export async function probeKey(key: string): Promise<Session> {
  try {
    await get('/admin/keys', { key });
    return { role: 'admin', key, appId: null, appTokens: {} };
  } catch (err) {
    if (!(err instanceof ApiFailure) || err.status !== 403) throw explain(err);
  }
  try {
    // An application token reads its own application (and only that one).
    const [own] = await listApps({ key });
    return { role: 'app', key, appId: own?.id ?? null, appTokens: {} };
  } catch (err) {
    throw explain(err);
  }
}

function explain(err: unknown): Error {
  if (err instanceof ApiFailure && err.status === 401) return new Error('This key is not valid (unknown, revoked or regenerated).');
  if (err instanceof ApiFailure && err.status === 403) return new Error('This key is neither the admin key nor an application token.');
  return err instanceof Error ? err : new Error(String(err));
}

export function SignIn({ notice, onSignedIn }: { notice: string | null; onSignedIn(s: Session): void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!key.trim()) return setError('Enter a key.');
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await probeKey(key.trim()));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin" id="main">
      <h1>tonwatch console</h1>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form class="card stack" onSubmit={submit} noValidate aria-label="Sign in">
        <Field
          label="Admin key or application API token"
          error={error}
          hint="The admin key (TONWATCH_ADMIN_KEY, or printed by tonwatch serve on first start) manages applications and webhooks; an application token manages that application's invoices. The key stays in this tab only."
        >
          {({ id, describedBy, invalid }) => (
            <input
              id={id}
              name="key"
              type="password"
              autoComplete="off"
              spellcheck={false}
              value={key}
              onInput={(e) => setKey(valueOf(e))}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              autoFocus
            />
          )}
        </Field>
        <div>
          <button type="submit" disabled={busy}>
            {busy ? 'Checking…' : 'Sign in'}
          </button>
        </div>
      </form>
    </main>
  );
}
