// Webhooks of component C for admin users: usage, create, and per webhook its status, subscriptions
// counts, back-online, a new token, delete — details (subscriptions, failure logs) on its own page.
import { useState } from 'preact/hooks';
import type { PageProps } from '../page-props.js';
import { backOnline, createWebhook, deleteWebhook, listWebhooks, newWebhookToken, usageStats, type UsageStats, type Webhook } from '../api/webhooks.js';
import { CopyButton, ErrorNote, Facts, Field, PageHeading, Section, StatusBadge, fieldErrors, valueOf } from '../components/ui.js';
import { formatInstant } from '../lib/time.js';
import { usePolling } from '../lib/poll.js';
import { reportUnlessAborted, useAction } from '../lib/use-action.js';
import { href, useRoute } from '../router.js';
import { WebhookDetail } from './webhook-detail.js';

const WEBHOOKS_INTERVAL_MS = 5000;

export function WebhooksPage(props: PageProps) {
  const route = useRoute();
  const id = Number(route.parts[1]);
  if (Number.isInteger(id) && id > 0) return <WebhookDetail {...props} id={id} />;
  return <WebhookList />;
}

function WebhookList() {
  const [webhooks, setWebhooks] = useState<Webhook[] | null>(null);
  const [usage, setUsage] = useState<UsageStats | null>(null);
  const [endpoint, setEndpoint] = useState('');
  const [endpointError, setEndpointError] = useState<string | null>(null);
  const [secrets, setSecrets] = useState<{ id: number; token: string; signing_secret: string } | null>(null);
  const action = useAction();

  const reload = async (signal?: AbortSignal) => {
    const [list, u] = await Promise.all([listWebhooks(signal), usageStats(signal)]);
    setWebhooks(list);
    setUsage(u);
  };
  usePolling(async (signal) => reload(signal).catch((err) => reportUnlessAborted(err, action.setError)), WEBHOOKS_INTERVAL_MS, []);

  const create = async (e: Event) => {
    e.preventDefault();
    setEndpointError(null);
    try {
      const created = await createWebhook(endpoint.trim());
      setSecrets({ id: created.webhook_id, token: created.token, signing_secret: created.signing_secret });
      setEndpoint('');
      await reload();
    } catch (err) {
      const { byField, other } = fieldErrors(err, ['endpoint']);
      if (byField.endpoint) setEndpointError(byField.endpoint);
      else if (other) setEndpointError((other as Error).message);
    }
  };
  const act = (name: string, fn: () => Promise<unknown>) => action.run(name, async () => (await fn(), await reload()));

  return (
    <>
      <PageHeading>Account webhooks</PageHeading>
      <p class="hint">
        Transactions of followed accounts, messages with an opcode, new contracts and the mempool, POSTed to your receivers (the webhooks API, keys with
        the <code>webhooks</code> scope). Invoice webhooks are on each application's Overview.
      </p>
      {usage && (
        <Section title="This month">
          <Facts
            items={[
              ['Since', formatInstant(usage.period_started_at)],
              ['Followed accounts', usage.account_subscriptions],
              ['Delivered', usage.webhooks_delivered],
              ['Failed attempts', usage.webhooks_failed],
            ]}
          />
        </Section>
      )}
      <Section title="Add a webhook">
        <form class="row top" onSubmit={create} noValidate>
          <div style={{ flex: '1 1 320px' }}>
            <Field label="Receiver URL" error={endpointError}>
              {({ id, describedBy, invalid }) => (
                <input id={id} type="url" value={endpoint} onInput={(e) => setEndpoint(valueOf(e))} placeholder="https://example.com/ton-hook" aria-describedby={describedBy} aria-invalid={invalid} />
              )}
            </Field>
          </div>
          <button type="submit">Add webhook</button>
        </form>
        {secrets && <Secrets {...secrets} onDone={() => setSecrets(null)} />}
      </Section>
      <ErrorNote error={action.error} />
      <Section title="Webhooks">
        {!webhooks ? (
          <p>Loading…</p>
        ) : webhooks.length === 0 ? (
          <p class="empty">No webhooks yet.</p>
        ) : (
          <div class="table-wrap">
            <table class="stack-sm">
              <thead>
                <tr>
                  <th>Id</th>
                  <th>Receiver</th>
                  <th>Status</th>
                  <th>Subscriptions</th>
                  <th>Last online</th>
                  <th>Actions</th>
                </tr>
              </thead>
              <tbody>
                {webhooks.map((w) => (
                  <tr key={w.id} data-webhook-id={w.id}>
                    <td data-label="Id">
                      <a href={href('webhooks', w.id)}>#{w.id}</a>
                    </td>
                    <td data-label="Receiver" class="mono">
                      {w.endpoint}
                    </td>
                    <td data-label="Status">
                      <StatusBadge status={w.status} />
                      {w.status_failed_attempts > 0 && <div class="hint">{w.status_failed_attempts} failed attempt{w.status_failed_attempts === 1 ? '' : 's'}</div>}
                      {w.status_reason && <div class="hint">{w.status_reason}</div>}
                    </td>
                    <td data-label="Subscriptions">
                      {w.subscribed_accounts} accounts · {w.subscribed_msg_opcodes} opcodes
                      {w.subscribed_to_new_contracts && ' · new contracts'}
                      {w.subscribed_to_mempool && ' · mempool'}
                    </td>
                    <td data-label="Last online">{formatInstant(w.last_online_at)}</td>
                    <td data-label="Actions">
                      <div class="card-actions">
                        <a class="button secondary" href={href('webhooks', w.id)}>
                          Details
                        </a>
                        {w.status !== 'online' && (
                          <button type="button" disabled={!!action.busy} onClick={() => act('online', () => backOnline(w.id))}>
                            Back online
                          </button>
                        )}
                        <button
                          type="button"
                          class="secondary"
                          disabled={!!action.busy}
                          onClick={() => act('token', async () => setSecrets({ id: w.id, ...(await newWebhookToken(w.id)) }))}
                        >
                          New token
                        </button>
                        <button
                          type="button"
                          class="danger"
                          disabled={!!action.busy}
                          onClick={() => confirm(`Delete webhook #${w.id} and its subscriptions?`) && act('delete', () => deleteWebhook(w.id))}
                        >
                          Delete
                        </button>
                      </div>
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

function Secrets({ id, token, signing_secret, onDone }: { id: number; token: string; signing_secret: string; onDone(): void }) {
  return (
    <div class="notice" role="status">
      <p>
        Webhook #{id}: every delivery carries <code>Authorization: Bearer &lt;token&gt;</code> and a Standard Webhooks signature made with the signing
        secret. Keep both on your receiver.
      </p>
      <p>Token</p>
      <div class="secret">
        <code>{token}</code>
        <CopyButton text={token} />
      </div>
      <p>Signing secret</p>
      <div class="secret">
        <code>{signing_secret}</code>
        <CopyButton text={signing_secret} />
      </div>
      <p>
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </p>
    </div>
  );
}
