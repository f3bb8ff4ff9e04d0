// Onboarding (admin key): the applications, and a new one — name, recipient wallet (which must be
// active with an outgoing transaction: the API's 400 says why not and how to activate it), optional
// webhook URL — whose API token is shown once.
import { useState } from 'preact/hooks';
import type { PageProps } from '../page-props.js';
import { ApiFailure } from '../api/client.js';
import { createApp, listApps, type Application } from '../api/apps.js';
import { OneTimeToken } from '../components/token.js';
import { AccountAddress, ErrorNote, Field, PageHeading, Section, fieldErrors, valueOf } from '../components/ui.js';
import { isTestOnly } from '../lib/address.js';
import { usePolling } from '../lib/poll.js';
import { formatTime } from '../lib/time.js';
import { reportUnlessAborted } from '../lib/use-action.js';
import { navigate } from '../router.js';

const FIELDS = ['name', 'description', 'recipient_address', 'webhooks'] as const;

export function AppsPage({ session, update }: PageProps) {
  const [apps, setApps] = useState<Application[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<{ app: Application; token: string } | null>(null);

  const reload = async (signal?: AbortSignal) => setApps(await listApps({ signal }));
  usePolling(async (signal) => reload(signal).catch((err) => reportUnlessAborted(err, setError)), 10_000, []);

  const open = (id: number) => {
    update({ appId: id });
    navigate('overview');
  };

  return (
    <>
      <PageHeading>Applications</PageHeading>
      <ErrorNote error={error} />
      {created ? (
        <Section title={`Application “${created.app.name}” created`}>
          <OneTimeToken token={created.token} />
          <p>
            <button type="button" onClick={() => open(created.app.id)}>
              Continue to its overview
            </button>
          </p>
        </Section>
      ) : (
        <NewAppForm
          onCreated={async (c) => {
            update({ appId: c.app.id, appTokens: { [String(c.app.id)]: c.token } });
            setCreated(c);
            await reload().catch(setError);
          }}
        />
      )}
      <Section title="Your applications">
        {!apps ? (
          <p>Loading…</p>
        ) : apps.length === 0 ? (
          <p class="empty">No application yet: create one above to accept payments.</p>
        ) : (
          <div class="table-wrap">
            <table class="stack-sm" id="apps">
              <thead>
                <tr>
                  <th>Id</th>
                  <th>Name</th>
                  <th>Recipient wallet</th>
                  <th>Webhooks</th>
                  <th>Created</th>
                  <th>Actions</th>
                </tr>
              </thead>
              <tbody>
                {apps.map((a) => (
                  <tr key={a.id}>
                    <td data-label="Id">#{a.id}</td>
                    <td data-label="Name">{a.name}</td>
                    <td data-label="Recipient wallet">
                      <AccountAddress raw={a.recipient_address} testOnly={isTestOnly(a.recipient_friendly)} />
                    </td>
                    <td data-label="Webhooks">{a.webhooks.length}</td>
                    <td data-label="Created">{formatTime(a.created_at)}</td>
                    <td data-label="Actions">
                      <button type="button" class={session.appId === a.id ? undefined : 'secondary'} onClick={() => open(a.id)}>
                        {session.appId === a.id ? 'Open (current)' : 'Open'}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
    </>
  );
}

function NewAppForm({ onCreated }: { onCreated(c: { app: Application; token: string }): Promise<void> }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [recipient, setRecipient] = useState('');
  const [webhook, setWebhook] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [other, setOther] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [notEligible, setNotEligible] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const local: Record<string, string> = {};
    const n = [...name.trim()].length;
    if (n < 3 || n > 64) local.name = 'the name needs 3 to 64 characters';
    if (!recipient.trim()) local.recipient_address = 'enter the wallet that receives the payments';
    setErrors(local);
    setOther(null);
    setNotEligible(false);
    if (Object.keys(local).length) return;
    setBusy(true);
    try {
      const created = await createApp({
        name: name.trim(),
        recipient_address: recipient.trim(),
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(webhook.trim() ? { webhooks: [webhook.trim()] } : {}),
      });
      await onCreated(created);
    } catch (err) {
      const { byField, other: rest } = fieldErrors(err, FIELDS);
      setErrors(byField);
      setOther(rest);
      setNotEligible(err instanceof ApiFailure && err.field === 'recipient_address' && /active|outgoing|transaction|deploy/i.test(err.message));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Section title="Create an application">
      <form class="stack" onSubmit={submit} noValidate aria-label="Create an application">
        <Field label="Name" error={errors.name} hint="3 to 64 characters, e.g. your shop's name">
          {({ id, describedBy, invalid }) => <input id={id} name="name" value={name} onInput={(e) => setName(valueOf(e))} aria-describedby={describedBy} aria-invalid={invalid} />}
        </Field>
        <Field
          label="Recipient wallet"
          error={errors.recipient_address}
          hint="The wallet your customers pay to (EQ…, UQ… or 0:…). It must be active and have sent at least one transaction."
        >
          {({ id, describedBy, invalid }) => (
            <input id={id} name="recipient_address" autoComplete="off" spellcheck={false} value={recipient} onInput={(e) => setRecipient(valueOf(e))} aria-describedby={describedBy} aria-invalid={invalid} />
          )}
        </Field>
        {notEligible && (
          <div class="notice notice--warn" id="activation-help">
            <strong>How to activate this wallet:</strong> open it in your wallet app and send any small amount (for example 0.01 TON to yourself or to
            another address you own). That first outgoing transfer deploys the wallet contract; once it is on chain, create the application again.
          </div>
        )}
        <Field label="Description (optional)" error={errors.description}>
          {({ id, describedBy, invalid }) => (
            <input id={id} name="description" value={description} onInput={(e) => setDescription(valueOf(e))} aria-describedby={describedBy} aria-invalid={invalid} />
          )}
        </Field>
        <Field label="Webhook URL (optional)" error={errors.webhooks} hint="Invoice status changes are POSTed here; you can add more on the Overview">
          {({ id, describedBy, invalid }) => (
            <input id={id} name="webhook" type="url" value={webhook} onInput={(e) => setWebhook(valueOf(e))} aria-describedby={describedBy} aria-invalid={invalid} />
          )}
        </Field>
        <ErrorNote error={other} />
        <div>
          <button type="submit" disabled={busy}>
            {busy ? 'Checking the wallet…' : 'Create application'}
          </button>
        </div>
      </form>
    </Section>
  );
}
