// Manual invoice creation: a decimal amount in TON or USDT converted to minimal units exactly, a
// lifetime preset or a custom one up to 90 days, and a description of at most 255 characters.
import { useRef, useState } from 'preact/hooks';
import type { PageProps } from '../page-props.js';
import { createInvoice } from '../api/invoices.js';
import { ErrorNote, Field, PageHeading, fieldErrors, valueOf } from '../components/ui.js';
import { LIFETIME_PRESETS, parseCustomLifetime, type CustomUnit } from '../lib/lifetime.js';
import { CURRENCIES, DECIMALS, parseAmount, type Currency } from '../lib/units.js';
import { href, navigate } from '../router.js';
import { invoiceKey } from '../session.js';

export const MAX_DESCRIPTION = 255;
const FIELDS = ['amount', 'currency', 'life_time', 'description'] as const;
const UNIT_NAME: Record<Currency, string> = { TON: 'nanoton', USDT: 'USDT units (10^-6)' };

export function NewInvoicePage({ session }: PageProps) {
  const key = invoiceKey(session)!;
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState<Currency>('TON');
  const [preset, setPreset] = useState<string>('day');
  const [custom, setCustom] = useState('');
  const [customUnit, setCustomUnit] = useState<CustomUnit>('hours');
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [other, setOther] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // One idempotency key per filled-in form: a double submit or a retry creates one invoice.
  const idempotencyKey = useRef(crypto.randomUUID());

  const parsed = amount.trim() ? parseAmount(amount, currency) : null;
  const descriptionLength = [...description].length;

  const submit = async (e: Event) => {
    e.preventDefault();
    const local: Record<string, string> = {};
    const a = parseAmount(amount, currency);
    if (!a.ok) local.amount = a.error;
    let lifeTime: number | undefined;
    if (preset === 'custom') {
      const l = parseCustomLifetime(custom, customUnit);
      if (l.ok) lifeTime = l.seconds;
      else local.life_time = l.error;
    } else {
      lifeTime = LIFETIME_PRESETS.find((p) => p.id === preset)?.seconds;
    }
    if (descriptionLength > MAX_DESCRIPTION) local.description = `at most ${MAX_DESCRIPTION} characters (now ${descriptionLength})`;
    setErrors(local);
    setOther(null);
    if (Object.keys(local).length > 0 || !a.ok || lifeTime === undefined) {
      focusFirstError();
      return;
    }
    setBusy(true);
    try {
      const invoice = await createInvoice(
        key,
        { amount: a.units, currency, life_time: lifeTime, ...(description.trim() ? { description } : {}) },
        idempotencyKey.current,
      );
      idempotencyKey.current = crypto.randomUUID();
      navigate('invoices', invoice.id);
    } catch (err) {
      const { byField, other: rest } = fieldErrors(err, FIELDS);
      setErrors(byField);
      setOther(rest);
      focusFirstError();
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <p>
        <a href={href('invoices')}>← Invoices</a>
      </p>
      <PageHeading>New invoice</PageHeading>
      <form class="card stack" onSubmit={submit} noValidate aria-label="New invoice">
        <div class="row top">
          <div style={{ flex: '1 1 200px' }}>
            <Field
              label="Amount"
              error={errors.amount}
              hint={parsed?.ok ? `= ${parsed.units} ${UNIT_NAME[currency]}` : `Up to ${DECIMALS[currency]} decimal places, at least 0.001 ${currency}`}
            >
              {({ id, describedBy, invalid }) => (
                <input
                  id={id}
                  name="amount"
                  inputMode="decimal"
                  autoComplete="off"
                  value={amount}
                  onInput={(e) => setAmount(valueOf(e))}
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                  placeholder="e.g. 12.5"
                />
              )}
            </Field>
          </div>
          <div style={{ flex: '0 1 140px' }}>
            <Field label="Currency" error={errors.currency}>
              {({ id, describedBy, invalid }) => (
                <select id={id} name="currency" value={currency} onChange={(e) => setCurrency(valueOf(e) as Currency)} aria-describedby={describedBy} aria-invalid={invalid}>
                  {CURRENCIES.map((c) => (
                    <option key={c} value={c}>
                      {c}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          </div>
        </div>

        <fieldset aria-describedby={errors.life_time ? 'life-time-error' : undefined}>
          <legend>Lifetime</legend>
          <div class="options">
            {[...LIFETIME_PRESETS, { id: 'custom', label: 'Custom' }].map((p) => (
              <label key={p.id}>
                <input type="radio" name="lifetime" value={p.id} checked={preset === p.id} onChange={() => setPreset(p.id)} /> {p.label}
              </label>
            ))}
          </div>
          {preset === 'custom' && (
            <div class="row" style={{ marginTop: '0.5rem' }}>
              <div style={{ flex: '1 1 120px' }}>
                <Field label="Custom lifetime" hint="At most 90 days">
                  {({ id, describedBy }) => (
                    <input id={id} name="custom_lifetime" inputMode="numeric" value={custom} onInput={(e) => setCustom(valueOf(e))} aria-describedby={describedBy} aria-invalid={!!errors.life_time} />
                  )}
                </Field>
              </div>
              <div style={{ flex: '0 1 140px' }}>
                <Field label="Unit">
                  {({ id }) => (
                    <select id={id} value={customUnit} onChange={(e) => setCustomUnit(valueOf(e) as CustomUnit)}>
                      <option value="minutes">minutes</option>
                      <option value="hours">hours</option>
                      <option value="days">days</option>
                    </select>
                  )}
                </Field>
              </div>
            </div>
          )}
          {errors.life_time && (
            <p class="field-error" id="life-time-error" role="alert">
              {errors.life_time}
            </p>
          )}
        </fieldset>

        <Field label="Description (optional)" error={errors.description} hint={`${descriptionLength}/${MAX_DESCRIPTION} characters · visible only to you`}>
          {({ id, describedBy, invalid }) => (
            <textarea id={id} name="description" rows={3} value={description} onInput={(e) => setDescription(valueOf(e))} aria-describedby={describedBy} aria-invalid={invalid} />
          )}
        </Field>

        <ErrorNote error={other} />
        <div>
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create invoice'}
          </button>
        </div>
      </form>
    </>
  );
}

function focusFirstError(): void {
  // After the error messages render, put the keyboard on the first field that needs a fix.
  setTimeout(() => (document.querySelector('[aria-invalid="true"]') as HTMLElement | null)?.focus(), 0);
}
