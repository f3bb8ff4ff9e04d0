// One invoice: status, the payment link with its QR code while it can be paid (once paid, cancelled or
// expired, why not instead), a countdown to expiry, the payments received and the overpayment —
// refreshed live while the page is open.
import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../page-props.js';
import { ApiFailure } from '../api/client.js';
import { cancelInvoice, getInvoice, invoiceQr, type Invoice } from '../api/invoices.js';
import { AccountAddress, CopyButton, ErrorNote, Facts, PageHeading, Section, StatusBadge } from '../components/ui.js';
import { isTestOnly, linkAddress } from '../lib/address.js';
import { formatDuration } from '../lib/lifetime.js';
import { usePolling } from '../lib/poll.js';
import { formatTime, nowSeconds } from '../lib/time.js';
import { formatAmount } from '../lib/units.js';
import { reportUnlessAborted, useAction } from '../lib/use-action.js';
import { href } from '../router.js';
import { invoiceKey } from '../session.js';

const INVOICE_INTERVAL_MS = 2000;
const KIND_TEXT = { payment: 'payment', excess: 'above the amount', late: 'after expiry or cancel' } as const;
/** Why an invoice that is no longer pending shows no QR code or wallet button. */
const CLOSED_TEXT: Record<Exclude<Invoice['status'], 'pending'>, string> = {
  paid: 'Paid — no payment needed.',
  cancelled: 'Cancelled — do not pay: a payment sent now counts as overpayment.',
  expired: 'Expired — do not pay: a payment sent now counts as overpayment. Create a new invoice instead.',
};

export function InvoicePage({ session, id }: PageProps & { id: string }) {
  const key = invoiceKey(session)!;
  const [invoice, setInvoice] = useState<Invoice | null>(null);
  const [missing, setMissing] = useState(false);
  const action = useAction();

  usePolling(
    async (signal) => {
      try {
        setInvoice(await getInvoice(key, id, signal));
      } catch (err) {
        if (err instanceof ApiFailure && (err.status === 404 || err.status === 400)) setMissing(true);
        else reportUnlessAborted(err, action.setError);
      }
    },
    INVOICE_INTERVAL_MS,
    [key, id],
  );

  if (missing) return <p>There is no invoice {id} in this application.</p>;
  if (!invoice) return <p>Loading…</p>;
  const cancel = () => action.run('cancel', async () => setInvoice(await cancelInvoice(key, id)));
  // The payment link names the pay-to wallet as wallets show it; its test-only flag is the network's.
  const testOnly = isTestOnly(linkAddress(invoice.payment_link));

  return (
    <>
      <p>
        <a href={href('invoices')}>← Invoices</a>
      </p>
      <PageHeading>
        Invoice <span class="mono">{invoice.id}</span>
      </PageHeading>
      <ErrorNote error={action.error} />
      <div class="grid">
        <Section
          title="Details"
          actions={
            invoice.status === 'pending' && (
              <button type="button" class="danger" disabled={!!action.busy} onClick={() => confirm('Cancel this invoice? Payments after it count as overpayment.') && cancel()}>
                Cancel invoice
              </button>
            )
          }
        >
          <Facts
            items={[
              ['Status', <StatusBadge status={invoice.status} />],
              ['Amount', formatAmount(invoice.amount, invoice.currency)],
              ['Overpayment', invoice.overpayment ? formatAmount(invoice.overpayment, invoice.currency) : '—'],
              ['Description', invoice.description ?? '—'],
              ['Created', formatTime(invoice.date_create)],
              ['Expires', formatTime(invoice.date_expire)],
              ['Paid', formatTime(invoice.date_paid)],
              ['Paid by', <AccountAddress raw={invoice.paid_by_address} testOnly={testOnly} />],
              ['Last change', formatTime(invoice.date_change)],
              ['Pay to', <AccountAddress raw={invoice.pay_to_address} testOnly={testOnly} />],
            ]}
          />
          {invoice.status === 'pending' && invoice.detected && <PaymentSeen invoice={invoice} />}
          {invoice.status === 'pending' && <Countdown until={invoice.date_expire} />}
        </Section>
        <Section title="Payment link">
          {invoice.status === 'pending' ? (
            <>
              <QrCode key={invoice.id} token={key} id={invoice.id} />
              <p>
                <code id="payment-link">{invoice.payment_link}</code>
              </p>
              <div class="card-actions">
                <CopyButton text={invoice.payment_link} label="Copy link" />
                <a class="button secondary" href={invoice.payment_link}>
                  Open in a wallet
                </a>
              </div>
            </>
          ) : (
            <p class="notice payment-closed" data-status={invoice.status}>
              {CLOSED_TEXT[invoice.status]}
            </p>
          )}
        </Section>
      </div>
      <Section title={`Payments received (${invoice.payments?.length ?? 0})`}>
        {!invoice.payments?.length ? (
          <p class="empty">No payment yet.</p>
        ) : (
          <div class="table-wrap">
            <table class="stack-sm" id="payments">
              <thead>
                <tr>
                  <th>Time</th>
                  <th class="num">Amount</th>
                  <th>Counted as</th>
                  <th>Payer</th>
                  <th>Transaction</th>
                </tr>
              </thead>
              <tbody>
                {invoice.payments.map((p) => (
                  <tr key={p.tx_hash}>
                    <td data-label="Time">{formatTime(p.utime)}</td>
                    <td data-label="Amount" class="num">
                      {formatAmount(p.amount, invoice.currency)}
                    </td>
                    <td data-label="Counted as">{KIND_TEXT[p.kind] ?? p.kind}</td>
                    <td data-label="Payer">
                      <AccountAddress raw={p.payer} testOnly={testOnly} />
                    </td>
                    <td data-label="Transaction" class="mono">
                      {p.tx_hash} (lt {p.lt})
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

function Countdown({ until }: { until: number }) {
  const [now, setNow] = useState(nowSeconds);
  useEffect(() => {
    const t = setInterval(() => setNow(nowSeconds()), 1000);
    return () => clearInterval(t);
  }, []);
  const left = until - now;
  return (
    <p>
      Expires in <span class="countdown" role="timer" aria-live="off">{left > 0 ? formatDuration(left) : 'now'}</span>
    </p>
  );
}

function QrCode({ token, id }: { token: string; id: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let objectUrl: string | null = null;
    let live = true;
    invoiceQr(token, id)
      .then((blob) => {
        if (!live) return;
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [token, id]);
  if (failed) return <p class="hint">The QR code could not be loaded.</p>;
  return url ? <img class="qr" src={url} alt="QR code of the payment link" /> : <div class="qr" aria-busy="true" />;
}

/** A payment seen before it is final (the `detected` extension): not paid until the masterchain commits it. */
export function PaymentSeen({ invoice }: { invoice: Invoice }) {
  const d = invoice.detected!;
  return (
    <p class="notice payment-seen" data-finality={d.finality}>
      Payment seen, waiting for finality: {formatAmount(d.amount, invoice.currency)} ({d.finality}, since {formatTime(d.at)}).
    </p>
  );
}
