// The console shell: sign-in, the navigation for the signed-in role, and the page of the current route.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onKeyRejected, setApiKey } from './api/client.js';
import { loadSession, saveSession, type Session } from './session.js';
import type { PageProps } from './page-props.js';
import { href, useRoute } from './router.js';
import { SignIn } from './pages/sign-in.js';
import { AppsPage } from './pages/apps.js';
import { OverviewPage } from './pages/overview.js';
import { InvoicesPage } from './pages/invoices.js';
import { NewInvoicePage } from './pages/new-invoice.js';
import { InvoicePage } from './pages/invoice.js';
import { StatsPage } from './pages/stats.js';
import { WebhooksPage } from './pages/webhooks.js';
import { NeedToken } from './pages/need-token.js';
import { invoiceKey } from './session.js';

export function App() {
  const [session, setSession] = useState<Session | null>(() => {
    const s = loadSession();
    setApiKey(s?.key ?? null);
    return s;
  });
  const [notice, setNotice] = useState<string | null>(null);
  const route = useRoute();

  const signIn = (s: Session | null, message?: string) => {
    setApiKey(s?.key ?? null);
    saveSession(s);
    setSession(s);
    setNotice(message ?? null);
    if (!s) location.hash = '';
  };
  useEffect(() => onKeyRejected(() => signIn(null, 'The key was rejected (revoked or regenerated): sign in again.')), []);

  if (!session) return <SignIn notice={notice} onSignedIn={(s) => signIn(s)} />;

  const update = (change: Partial<Session>) => {
    const next = { ...session, ...change, appTokens: { ...session.appTokens, ...change.appTokens } };
    saveSession(next);
    setSession(next);
  };
  const props: PageProps = { session, update };
  const [first = session.role === 'admin' ? 'apps' : 'invoices', second] = route.parts;
  const needsInvoiceKey = ['invoices', 'stats'].includes(first) && !invoiceKey(session);

  let page: ComponentChildren;
  if (needsInvoiceKey) page = <NeedToken {...props} />;
  else if (first === 'apps' && session.role === 'admin') page = <AppsPage {...props} />;
  else if (first === 'overview') page = <OverviewPage {...props} />;
  else if (first === 'invoices' && second === 'new') page = <NewInvoicePage {...props} />;
  else if (first === 'invoices' && second) page = <InvoicePage {...props} id={second} />;
  else if (first === 'invoices') page = <InvoicesPage {...props} />;
  else if (first === 'stats') page = <StatsPage {...props} />;
  else if (first === 'webhooks' && session.role === 'admin') page = <WebhooksPage {...props} />;
  else page = <p>There is no page here. Use the navigation above.</p>;

  const nav: Array<[string, string]> = [
    ...(session.role === 'admin' ? ([['apps', 'Applications']] as Array<[string, string]>) : []),
    ['overview', 'Overview'],
    ['invoices', 'Invoices'],
    ['stats', 'Statistics'],
    ...(session.role === 'admin' ? ([['webhooks', 'Account webhooks']] as Array<[string, string]>) : []),
  ];
  return (
    <>
      <a class="skip-link" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <div class="bar">
          <a class="brand" href={href(nav[0]![0])}>
            tonwatch
          </a>
          <nav aria-label="Main">
            <ul>
              {nav.map(([path, label]) => (
                <li key={path}>
                  <a href={href(path)} aria-current={first === path ? 'page' : undefined}>
                    {label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <div class="who">
            <span>
              {session.role === 'admin' ? 'Admin' : 'Application token'}
              {session.appId !== null ? ` · app #${session.appId}` : ''}
            </span>
            <button type="button" onClick={() => signIn(null, 'Signed out.')}>
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </>
  );
}
