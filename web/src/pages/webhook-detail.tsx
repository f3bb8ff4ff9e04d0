// One webhook of component C: status, followed accounts with their delivery cursors, opcode,
// new-contract and mempool subscriptions, and the failure log with redelivery.
import { useState } from 'preact/hooks';
import type { PageProps } from '../page-props.js';
import {
  accountSubscriptions,
  backOnline,
  listWebhooks,
  opcodeSubscriptions,
  redeliver,
  setMempool,
  setNewContracts,
  setOpcode,
  subscribeAccounts,
  unsubscribeAccounts,
  webhookLogs,
  type AccountSubscription,
  type OpcodeSubscription,
  type Webhook,
  type WebhookLog,
} from '../api/webhooks.js';
import { ErrorNote, Facts, Field, PageHeading, Section, StatusBadge, fieldErrors, valueOf } from '../components/ui.js';
import { formatInstant } from '../lib/time.js';
import { usePolling } from '../lib/poll.js';
import { reportUnlessAborted, useAction } from '../lib/use-action.js';
import { href } from '../router.js';

const DETAIL_INTERVAL_MS = 5000;
const ACCOUNTS_PAGE = 100;

export function WebhookDetail({ id }: PageProps & { id: number }) {
  const [webhook, setWebhook] = useState<Webhook | null | undefined>(undefined);
  const [accounts, setAccounts] = useState<AccountSubscription[]>([]);
  const [accountsOffset, setAccountsOffset] = useState(0);
  const [opcodes, setOpcodes] = useState<OpcodeSubscription[]>([]);
  const [logs, setLogs] = useState<{ offset: number; next?: number; items: WebhookLog[] }>({ offset: 0, items: [] });
  const [newAccounts, setNewAccounts] = useState('');
  const [newOpcode, setNewOpcode] = useState('');
  const [fieldError, setFieldError] = useState<Record<string, string>>({});
  const action = useAction();

  const reload = async (signal?: AbortSignal) => {
    const [list, subs, ops, page] = await Promise.all([
      listWebhooks(signal),
      accountSubscriptions(id, accountsOffset, ACCOUNTS_PAGE, signal),
      opcodeSubscriptions(id, signal),
      webhookLogs(id, logs.offset, signal),
    ]);
    setWebhook(list.find((w) => w.id === id) ?? null);
    setAccounts(subs);
    setOpcodes(ops);
    setLogs({ offset: logs.offset, next: page.next_offset, items: page.logs });
  };
  usePolling(async (signal) => reload(signal).catch((err) => reportUnlessAborted(err, action.setError)), DETAIL_INTERVAL_MS, [id, accountsOffset, logs.offset]);

  const act = (name: string, fn: () => Promise<unknown>) => action.run(name, async () => (await fn(), await reload()));
  const submitField = async (e: Event, field: 'accounts' | 'opcode', fn: () => Promise<unknown>, reset: () => void) => {
    e.preventDefault();
    setFieldError({});
    try {
      await fn();
      reset();
      await reload();
    } catch (err) {
      const { byField, other } = fieldErrors(err, [field]);
      setFieldError({ [field]: byField[field] ?? (other as Error).message });
    }
  };

  if (webhook === undefined) return <p>Loading…</p>;
  if (webhook === null) return <p>Webhook #{id} does not exist or belongs to another key.</p>;
  return (
    <>
      <p>
        <a href={href('webhooks')}>← Account webhooks</a>
      </p>
      <PageHeading>Webhook #{id}</PageHeading>
      <ErrorNote error={action.error} />
      <Section
        title="Status"
        actions={
          webhook.status !== 'online' && (
            <button type="button" disabled={!!action.busy} onClick={() => act('online', () => backOnline(id))}>
              Back online
            </button>
          )
        }
      >
        <Facts
          items={[
            ['Receiver', <span class="mono">{webhook.endpoint}</span>],
            ['Status', <StatusBadge status={webhook.status} />],
            ['Since', formatInstant(webhook.status_updated_at)],
            ['Last online', formatInstant(webhook.last_online_at)],
            ['Failed attempts', webhook.status_failed_attempts],
            ...(webhook.status_reason ? ([['Reason', webhook.status_reason]] as Array<[string, string]>) : []),
          ]}
        />
      </Section>

      <Section title="Feeds">
        <div class="options">
          <label class="check">
            <input type="checkbox" checked={webhook.subscribed_to_new_contracts} disabled={!!action.busy} onChange={(e) => act('feed', () => setNewContracts(id, e.currentTarget.checked))} />
            New contracts
          </label>
          <label class="check">
            <input type="checkbox" checked={webhook.subscribed_to_mempool} disabled={!!action.busy} onChange={(e) => act('feed', () => setMempool(id, e.currentTarget.checked))} />
            Mempool
          </label>
        </div>
      </Section>

      <Section title={`Followed accounts (${webhook.subscribed_accounts})`}>
        <form class="row top" noValidate onSubmit={(e) => submitField(e, 'accounts', () => subscribeAccounts(id, splitList(newAccounts)), () => setNewAccounts(''))}>
          <div style={{ flex: '1 1 320px' }}>
            <Field label="Accounts to follow" hint="One or more addresses, separated by spaces, commas or new lines" error={fieldError.accounts}>
              {({ id: fid, describedBy, invalid }) => (
                <textarea id={fid} rows={2} value={newAccounts} onInput={(e) => setNewAccounts(valueOf(e))} aria-describedby={describedBy} aria-invalid={invalid} />
              )}
            </Field>
          </div>
          <button type="submit">Follow</button>
        </form>
        <div class="table-wrap">
          <table class="stack-sm">
            <thead>
              <tr>
                <th>Account</th>
                <th class="num">Last delivered lt</th>
                <th>Stuck on</th>
                <th>Actions</th>
              </tr>
            </thead>
            <tbody>
              {accounts.map((a) => (
                <tr key={a.account_id}>
                  <td data-label="Account" class="mono">
                    {a.account_id}
                  </td>
                  <td data-label="Last delivered lt" class="num">
                    {a.last_delivered_lt}
                  </td>
                  <td data-label="Stuck on">
                    {a.failed_lt ? `lt ${a.failed_lt}, ${a.failed_attempts ?? 0} attempts since ${formatInstant(a.failed_at)}` : '—'}
                  </td>
                  <td data-label="Actions">
                    <button type="button" class="danger" disabled={!!action.busy} onClick={() => act('unfollow', () => unsubscribeAccounts(id, [a.account_id]))}>
                      Unfollow
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div class="pager">
          <button type="button" class="secondary" disabled={accountsOffset === 0} onClick={() => setAccountsOffset(Math.max(0, accountsOffset - ACCOUNTS_PAGE))}>
            Previous
          </button>
          <button type="button" class="secondary" disabled={accounts.length < ACCOUNTS_PAGE} onClick={() => setAccountsOffset(accountsOffset + ACCOUNTS_PAGE)}>
            Next
          </button>
        </div>
      </Section>

      <Section title="Opcodes">
        <form class="row top" noValidate onSubmit={(e) => submitField(e, 'opcode', () => setOpcode(id, newOpcode.trim(), true), () => setNewOpcode(''))}>
          <div style={{ flex: '1 1 200px' }}>
            <Field label="Opcode" hint="0x and 8 hex digits, e.g. 0x0f8a7ea5 (jetton transfer)" error={fieldError.opcode}>
              {({ id: fid, describedBy, invalid }) => <input id={fid} value={newOpcode} onInput={(e) => setNewOpcode(valueOf(e))} aria-describedby={describedBy} aria-invalid={invalid} />}
            </Field>
          </div>
          <button type="submit">Subscribe</button>
        </form>
        <ul>
          {opcodes.map((o) => (
            <li key={o.opcode}>
              <code>{o.opcode}</code> <StatusBadge status={o.status} /> {o.disabled_reason && <span class="hint">{o.disabled_reason}</span>}{' '}
              <button type="button" class="link" disabled={!!action.busy} onClick={() => act('opcode', () => setOpcode(id, o.opcode, false))}>
                unsubscribe
              </button>
            </li>
          ))}
        </ul>
      </Section>

      <Section title="Failed deliveries">
        <LogTable logs={logs.items} busy={!!action.busy} onRedeliver={(m) => act('redeliver', () => redeliver(id, m))} />
        <div class="pager">
          <button type="button" class="secondary" disabled={logs.offset === 0} onClick={() => setLogs({ offset: 0, items: [] })}>
            Newest
          </button>
          <button type="button" class="secondary" disabled={logs.next === undefined} onClick={() => setLogs({ offset: logs.next!, items: [] })}>
            Older
          </button>
        </div>
      </Section>
    </>
  );
}

export function LogTable({ logs, busy, onRedeliver }: { logs: WebhookLog[]; busy: boolean; onRedeliver(messageId: string): void }) {
  if (logs.length === 0) return <p class="empty">No failed deliveries.</p>;
  return (
    <div class="table-wrap">
      <table class="stack-sm">
        <thead>
          <tr>
            <th>Time</th>
            <th>Event</th>
            <th class="num">Attempt</th>
            <th class="num">Status</th>
            <th>Message</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {logs.map((l, i) => (
            <tr key={`${l.message_id}-${l.attempt}-${i}`}>
              <td data-label="Time">{formatInstant(l.timestamp)}</td>
              <td data-label="Event">{l.event_type}</td>
              <td data-label="Attempt" class="num">
                {l.attempt}
              </td>
              <td data-label="Status" class="num">
                {l.status_code ?? '—'}
              </td>
              <td data-label="Message">{l.error ?? l.message}</td>
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
  );
}

function splitList(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}
