// Small accessible building blocks: labelled fields with their error beside them, real buttons,
// a status line read out by screen readers, and a page heading that takes focus on navigation.
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, errorText } from '../api/client.js';
import { friendlyAddress } from '../lib/address.js';

let fieldSeq = 0;
export function useId(prefix: string): string {
  const ref = useRef<string>();
  ref.current ??= `${prefix}-${++fieldSeq}`;
  return ref.current;
}

export function PageHeading({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  // Moves focus to the new page's heading so keyboard and screen-reader users know where they are.
  useEffect(() => ref.current?.focus(), []);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

interface FieldProps {
  label: string;
  error?: string | null;
  hint?: ComponentChildren;
  children: (ids: { id: string; describedBy: string | undefined; invalid: boolean }) => ComponentChildren;
}

/** A label, the control (given ids), a hint and the field's error, linked for assistive technology. */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId('f');
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${error ? ' field--invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children({ id, describedBy, invalid: !!error })}
      {hint && (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={errorId} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="error-note" role="alert">
      {errorText(error)}
    </p>
  );
}

/** Splits an API failure into the error of a named form field and the rest. */
export function fieldErrors(err: unknown, fields: readonly string[]): { byField: Record<string, string>; other: unknown } {
  if (err instanceof ApiFailure && err.field) {
    const name = fields.find((f) => err.field === f || err.field!.startsWith(`${f}.`) || err.field!.startsWith(`${f}[`));
    if (name) return { byField: { [name]: err.message }, other: null };
  }
  return { byField: {}, other: err };
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
    setTimeout(() => setCopied('idle'), 2000);
  };
  return (
    <button type="button" class="secondary" onClick={copy} aria-live="polite">
      {copied === 'copied' ? 'Copied' : copied === 'failed' ? 'Select and copy by hand' : label}
    </button>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge--${status}`}>{status}</span>;
}

export function Busy({ when, children }: { when: boolean; children: ComponentChildren }) {
  return <>{when ? <span aria-busy="true">Working…</span> : children}</>;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  const id = useId('s');
  return (
    <section class="card" aria-labelledby={id}>
      <div class="card-head">
        <h2 id={id}>{title}</h2>
        {actions && <div class="card-actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

/** A definition list of facts: [label, value] pairs. */
export function Facts({ items }: { items: Array<[string, ComponentChildren]> }) {
  return (
    <dl class="facts">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

export type InputEvent = JSX.TargetedEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, Event>;
export const valueOf = (e: InputEvent) => e.currentTarget.value;

/** An account in the user-friendly form wallets show, the raw form on hover (and in `data-raw` for copying). */
export function AccountAddress({ raw, testOnly, bounceable = false }: { raw: string | null | undefined; testOnly: boolean; bounceable?: boolean }) {
  if (!raw) return <span class="mono">—</span>;
  return (
    <span class="mono address" title={raw} data-raw={raw}>
      {friendlyAddress(raw, { testOnly, bounceable })}
    </span>
  );
}
