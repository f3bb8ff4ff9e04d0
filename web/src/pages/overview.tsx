// The application's overview: its details, its API token (metadata; regenerate shows the new one
// once), and its invoice webhook URLs with a test delivery, the failed-delivery log and redelivery.
import { useState } from 'preact/hooks';
import type { PageProps } from '../page-props.js';
import { setApiKey } from '../api/client.js';
import { getApp, regenerateToken, tokenInfo, updateApp, type Application, type TokenInfo } from '../api/apps.js';
import { OneTimeToken } from '../components/token.js';
import { AccountAddress, ErrorNote, Facts, Field, PageHeading, Section, fieldErrors, valueOf } from '../components/ui.js';
import { isTestOnly } from '../lib/address.js';
import { usePolling } from '../lib/poll.js';
import { formatTime } from '../lib/time.js';
import { reportUnlessAborted, useAction } from '../lib/use-action.js';
import { href } from '../router.js';
import { AppWebhooks } from './app-webhooks.js';

const OVERVIEW_INTERVAL_MS = 4000;

export function OverviewPage({ session, update }: PageProps) {
  const appId = session.appId;
  const [app, setApp] = useState<Application | null>(null);
  const [token, setToken] = useState<TokenInfo | null | undefined>(undefined);
  const [newToken, setNewToken] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const action = useAction();

  const reload = async (signal?: AbortSignal) => {
    if (appId === null) return;
    const [a, t] = await Promise.all([getApp(appId, signal), tokenInfo(appId, signal)]);
    setApp(a);
    setToken(t);
  };
  usePolling(async (signal) => reload(signal).catch((err) => reportUnlessAborted(err, action.setError)), OVERVIEW_INTERVAL_MS, [appId]);

  if (appId === null) {
    return (
      <>
        <PageHeading>Overview</PageHeading>
        <p>
          <a href={href('apps')}>Choose or create an application</a> first.
        </p>
      </>
    );
  }

  const regenerate = () =>
    action.run('token', async () => {
      const r = await regenerateToken(appId);
      setNewToken(r.token);
      setToken(r.token_info);
      // Signed in with this very token? Then the session moves to the new one (the old stopped working).
      if (session.role === 'app') {
        setApiKey(r.token);
        update({ key: r.token });
      } else update({ appTokens: { [String(appId)]: r.token } });
    });

  return (
    <>
      <PageHeading>{app ? app.name : `Application #${appId}`}</PageHeading>
      <ErrorNote error={action.error} />
      <div class="grid">
        <Section
          title="Application"
          actions={
            app && (
              <button type="button" class="secondary" onClick={() => setEditing(!editing)} aria-expanded={editing}>
                {editing ? 'Close' : 'Edit'}
              </button>
            )
          }
        >
          {app && !editing && (
            <Facts
              items={[
                ['Id', `#${app.id}`],
                ['Name', app.name],
                ['Description', app.description ?? '—'],
                ['Recipient wallet', <AccountAddress raw={app.recipient_address} testOnly={isTestOnly(app.recipient_friendly)} />],
                ['USDT jetton wallet', <AccountAddress raw={app.usdt_jetton_wallet} testOnly={isTestOnly(app.recipient_friendly)} bounceable />],
                ['Created', formatTime(app.created_at)],
                ['Updated', formatTime(app.updated_at)],
              ]}
            />
          )}
          {app && editing && (
            <EditApp
              app={app}
              onSaved={(a) => {
                setApp(a);
                setEditing(false);
              }}
            />
          )}
          {!app && <p>Loading…</p>}
        </Section>
        <Section
          title="API token"
          actions={
            <button
              type="button"
              class="secondary"
              disabled={!!action.busy}
              onClick={() => confirm('Make a new API token? The current one stops working at once.') && regenerate()}
            >
              Regenerate
            </button>
          }
        >
          {token === undefined ? (
            <p>Loading…</p>
          ) : token === null ? (
            <p>This application has no token: regenerate one.</p>
          ) : (
            <Facts
              items={[
                ['Token', <code>{token.prefix.endsWith('…') ? token.prefix : `${token.prefix}…`}</code>],
                ['Created', formatTime(token.created_at)],
                ['Last used', formatTime(token.last_used_at)],
              ]}
            />
          )}
          {newToken && <OneTimeToken token={newToken} onDone={() => setNewToken(null)} />}
        </Section>
      </div>
      {app && <AppWebhooks app={app} onChange={() => reload()} />}
    </>
  );
}

function EditApp({ app, onSaved }: { app: Application; onSaved(a: Application): void }) {
  const [name, setName] = useState(app.name);
  const [description, setDescription] = useState(app.description ?? '');
  const [recipient, setRecipient] = useState(app.recipient_friendly);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [other, setOther] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setOther(null);
    try {
      const change: Parameters<typeof updateApp>[1] = {};
      if (name.trim() !== app.name) change.name = name.trim();
      if (description.trim() !== (app.description ?? '')) change.description = description.trim() || null;
      if (![app.recipient_friendly, app.recipient_address].includes(recipient.trim())) change.recipient_address = recipient.trim();
      onSaved(Object.keys(change).length ? await updateApp(app.id, change) : app);
    } catch (err) {
      const { byField, other: rest } = fieldErrors(err, ['name', 'description', 'recipient_address']);
      setErrors(byField);
      setOther(rest);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="stack" onSubmit={submit} noValidate aria-label="Edit application">
      <Field label="Name" error={errors.name}>
        {({ id, describedBy, invalid }) => <input id={id} value={name} onInput={(e) => setName(valueOf(e))} aria-describedby={describedBy} aria-invalid={invalid} />}
      </Field>
      <Field label="Description" error={errors.description}>
        {({ id, describedBy, invalid }) => <input id={id} value={description} onInput={(e) => setDescription(valueOf(e))} aria-describedby={describedBy} aria-invalid={invalid} />}
      </Field>
      <Field label="Recipient wallet" error={errors.recipient_address} hint="Payments to the previous wallet still count for the invoices that named it">
        {({ id, describedBy, invalid }) => <input id={id} value={recipient} onInput={(e) => setRecipient(valueOf(e))} aria-describedby={describedBy} aria-invalid={invalid} />}
      </Field>
      <ErrorNote error={other} />
      <div>
        <button type="submit" disabled={busy}>
          Save
        </button>
      </div>
    </form>
  );
}
