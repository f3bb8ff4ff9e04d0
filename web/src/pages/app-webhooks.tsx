// Invoice webhook URLs of one application: add, remove, send a test delivery, back-online, and the
// failed-delivery log (status code, error, latency) with a redeliver button per delivery.
import { useState } from 'preact/hooks';
import {
  addAppWebhook,
  appWebhookBackOnline,
  appWebhookLogs,
  redeliverAppWebhook,
  removeAppWebhook,
  testAppWebhook,
  type AppDeliveryLog,
  type AppWebhook,
  type Application,
} from '../api/apps.js';
import { CopyButton, ErrorNote, Field, Section, StatusBadge, fieldErrors, valueOf } from '../components/ui.js';
import { usePolling } from '../lib/poll.js';
import { formatTime } from '../lib/time.js';
import { reportUnlessAborted, useAction } from '../lib/use-action.js';

const LOG_INTERVAL_MS = 4000;

export function AppWebhooks({ app, onChange }: { app: Application; onChange(): Promise<void> }) {
  const [url, setUrl] = useState('');
  const [urlError, setUrlError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();

  const add = async (e: Event) => {
    e.preventDefault();
    setUrlError(null);
    try {
      await addAppWebhook(app.id, url.trim());
      setUrl('');
      await onChange();
    } catch (err) {
      const { byField, other } = fieldErrors(err, ['url']);
      setUrlError(byField.url ?? (other as Error).message);
    }
  };
  const act = (name: string, fn: () => Promise<unknown>) => action.run(name, async () => (await fn(), await onChange()));

  return (
    <Section title="Webhooks">
      <p class="hint">
        Every invoice status change (paid, expired, cancelled, overpaid) is POSTed as the invoice JSON to each URL, signed per Standard Webhooks with the
        URL's signing secret.
      </p>
      <form class="row top" onSubmit={add} noValidate aria-label="Add a webhook URL">
        <div style={{ flex: '1 1 320px' }}>
          <Field label="Webhook URL" error={urlError}>
            {({ id, describedBy, invalid }) => (
              <input id={id} name="url" type="url" value={url} onInput={(e) => setUrl(valueOf(e))} placeholder="https://shop.example/ton-webhook" aria-describedby={describedBy} aria-invalid={invalid} />
            )}
          </Field>
        </div>
        <button type="submit">Add URL</button>
      </form>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <ErrorNote error={action.error} />
      {app.webhooks.length === 0 && <p class="empty">No webhook URL yet.</p>}
      {app.webhooks.map((w) => (
        <article class="card" key={w.id} data-webhook-id={w.id} aria-label={`Webhook ${w.url}`}>
          <div class="card-head">
            <h3 class="mono">{w.url}</h3>
            <div class="card-actions">
              <button
                type="button"
                class="secondary"
                disabled={!!action.busy}
                onClick={() => act('test', async () => setNotice(`Test delivery queued (webhook-id ${(await testAppWebhook(app.id, w.id)).message_id}).`))}
              >
                Send test
              </button>
              {w.status !== 'online' && (
                <button type="button" disabled={!!action.busy} onClick={() => act('online', () => appWebhookBackOnline(app.id, w.id))}>
                  Back online
                </button>
              )}
              <button type="button" class="danger" disabled={!!action.busy} onClick={() => confirm(`Remove ${w.url}?`) && act('remove', () => removeAppWebhook(app.id, w.id))}>
                Remove
              </button>
            </div>
          </div>
          <p>
            <StatusBadge status={w.status} /> {w.failed_attempts > 0 && `${w.failed_attempts} failed attempt${w.failed_attempts === 1 ? '' : 's'} · `}last online {formatTime(w.last_online_at)}
          </p>
          <details>
            <summary>Signing secret</summary>
            <div class="secret">
              <code>{w.signing_secret}</code>
              <CopyButton text={w.signing_secret} />
            </div>
          </details>
          <DeliveryLog appId={app.id} webhook={w} busy={!!action.busy} onRedeliver={(m) => act('redeliver', async () => {
            await redeliverAppWebhook(app.id, w.id, m);
            setNotice(`Delivery ${m} queued again.`);
          })} />
        </article>
      ))}
    </Section>
  );
}

function DeliveryLog({ appId, webhook, busy, onRedeliver }: { appId: number; webhook: AppWebhook; busy: boolean; onRedeliver(messageId: string): void }) {
  const [logs, setLogs] = useState<AppDeliveryLog[] | null>(null);
  const [offset, setOffset] = useState(0);
  const [next, setNext] = useState<number | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  usePolling(
    async (signal) => {
      try {
        const page = await appWebhookLogs(appId, webhook.id, offset, signal);
        setLogs(page.logs);
        setNext(page.next_offset);
      } catch (err) {
        reportUnlessAborted(err, setError);
      }
    },
    LOG_INTERVAL_MS,
    [appId, webhook.id, offset],
  );
  return (
    <>
      <h4>Failed deliveries</h4>
      <ErrorNote error={error} />
      {!logs ? (
        <p>Loading…</p>
      ) : logs.length === 0 ? (
        <p class="empty">No failed delivery.</p>
      ) : (
        <div class="table-wrap">
          <table class="stack-sm delivery-log">
            <thead>
              <tr>
                <th>Time</th>
                <th>Event</th>
                <th class="num">Attempt</th>
                <th class="num">Status code</th>
                <th>Error</th>
                <th class="num">Latency</th>
                <th>Actions</th>
              </tr>
            </thead>
            <tbody>
              {logs.map((l, i) => (
                <tr key={`${l.message_id}-${l.attempt}-${i}`}>
                  <td data-label="Time">{formatTime(l.timestamp)}</td>
                  <td data-label="Event">{l.event_type}</td>
                  <td data-label="Attempt" class="num">
                    {l.attempt}
                  </td>
                  <td data-label="Status code" class="num">
                    {l.status_code ?? '—'}
                  </td>
                  <td data-label="Error">{l.error ?? l.message}</td>
                  <td data-label="Latency" class="num">
                    {l.latency_ms} ms
                  </td>
                  <td data-label="Actions">
                    <button type="button" class="secondary" disabled={busy} onClick={() => onRedeliver(l.message_id)}>
                      Redeliver
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(offset > 0 || next !== undefined) && (
        <div class="pager">
          <button type="button" class="secondary" disabled={offset === 0} onClick={() => setOffset(0)}>
            Newest
          </button>
          <button type="button" class="secondary" disabled={next === undefined} onClick={() => setOffset(next!)}>
            Older
          </button>
        </div>
      )}
    </>
  );
}
