// An admin looking at invoices needs the application's API token (the invoice API is per application).
import { useState } from 'preact/hooks';
import type { PageProps } from '../page-props.js';
import { Field, PageHeading, valueOf } from '../components/ui.js';
import { href } from '../router.js';

export function NeedToken({ session, update }: PageProps) {
  const [token, setToken] = useState('');
  if (session.appId === null) {
    return (
      <>
        <PageHeading>Pick an application</PageHeading>
        <p>
          Invoices belong to an application. <a href={href('apps')}>Choose or create one</a> first.
        </p>
      </>
    );
  }
  return (
    <>
      <PageHeading>This session has no API token of application #{session.appId}</PageHeading>
      <p>
        Tokens are stored hashed, so tonwatch cannot show an existing one. Paste it, or regenerate it on the <a href={href('overview')}>Overview</a>{' '}
        (the old token stops working).
      </p>
      <form
        class="card stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (token.trim()) update({ appTokens: { [String(session.appId)]: token.trim() } });
        }}
      >
        <Field label="Application API token">
          {({ id }) => <input id={id} type="password" autoComplete="off" value={token} onInput={(e) => setToken(valueOf(e))} />}
        </Field>
        <div>
          <button type="submit">Use this token</button>
        </div>
      </form>
    </>
  );
}
