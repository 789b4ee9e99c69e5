import { Fragment, useEffect, useRef, useState, type ReactNode } from 'react';
import { ErrorMessage, Loading } from './components/feedback';
import { ModeSwitch, TestModeBanner } from './components/test-mode';
import { planName } from './format';
import { SignInPage, SignUpPage } from './pages/auth-pages';
import { KeysPage } from './pages/keys-page';
import { PlanPage } from './pages/plan-page';
import { WebhooksPage } from './pages/webhooks-page';
import { useMode } from './mode';
import { afterSignIn, Link, navigate, Redirect, routes, signInFor, usePath } from './router';
import { useSession, useSignedIn } from './session';

const TITLES: Record<string, string> = {
  [routes.signIn]: 'Sign in',
  [routes.signUp]: 'Create your organisation',
  [routes.keys]: 'API keys',
  [routes.plan]: 'Plan',
  [routes.webhooks]: 'Webhooks',
};

/** After an in-app navigation, move focus to the new page's heading, as a page load would. */
function usePageFocus(path: string, ready: boolean, testMode: boolean) {
  const previous = useRef<string | null>(null);
  useEffect(() => {
    document.title = `${testMode ? 'Test mode · ' : ''}${TITLES[path] ?? 'Dashboard'} · Boxoffice`;
    if (!ready) return;
    if (previous.current !== null && previous.current !== path) {
      document.querySelector<HTMLElement>('[data-page-heading]')?.focus();
    }
    previous.current = path;
  }, [path, ready, testMode]);
}

export function App() {
  const { state, reload } = useSession();
  const path = usePath();
  const mode = useMode();
  usePageFocus(
    path,
    state.status === 'signed-in' || state.status === 'signed-out',
    state.status === 'signed-in' && mode === 'test',
  );

  if (state.status === 'loading') {
    return (
      <main id="main" className="center">
        <Loading>Loading your dashboard…</Loading>
      </main>
    );
  }
  if (state.status === 'error') {
    return (
      <main id="main" className="center">
        <h1>Boxoffice dashboard</h1>
        <ErrorMessage error={state.error} onRetry={reload} />
      </main>
    );
  }
  if (state.status === 'signed-out') {
    if (path === routes.signUp) return <SignUpPage />;
    if (path === routes.signIn) return <SignInPage />;
    return <Redirect to={signInFor(path)} />;
  }
  if (path === routes.keys)
    return (
      <Shell path={path}>
        <KeysPage />
      </Shell>
    );
  if (path === routes.plan)
    return (
      <Shell path={path}>
        <PlanPage />
      </Shell>
    );
  if (path === routes.webhooks)
    return (
      <Shell path={path}>
        <WebhooksPage />
      </Shell>
    );
  if (path === routes.signIn || path === routes.signUp) return <Redirect to={afterSignIn()} />;
  if (path === '/' || path === '/settings') return <Redirect to={routes.keys} />;
  return (
    <Shell path={path}>
      <h1 tabIndex={-1} data-page-heading>
        Page not found
      </h1>
      <p>
        There is nothing at this address. <Link to={routes.keys}>Go to your API keys</Link>.
      </p>
    </Shell>
  );
}

function Shell({ path, children }: { path: string; children: ReactNode }) {
  const { user, organisation } = useSignedIn();
  const { signOut } = useSession();
  const [signOutError, setSignOutError] = useState<unknown>(null);
  const [signingOut, setSigningOut] = useState(false);
  const mode = useMode();
  // A reset of the test data shows the page afresh, as does a switch of mode.
  const [resets, setResets] = useState(0);

  const handleSignOut = async () => {
    setSigningOut(true);
    setSignOutError(null);
    try {
      await signOut();
      navigate(routes.signIn, { replace: true });
    } catch (error) {
      setSignOutError(error);
      setSigningOut(false);
    }
  };

  const navLink = (to: string, label: string) => (
    <li>
      <Link to={to} className="nav-link" aria-current={path === to ? 'page' : undefined}>
        {label}
      </Link>
    </li>
  );

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <div className="topbar-start">
            <Link to={routes.keys} className="brand">
              Boxoffice
            </Link>
            <nav aria-label="Developers">
              <a className="topbar-link" href="/docs">
                API reference
              </a>
            </nav>
          </div>
          <div className="account">
            <ModeSwitch />
            <span className="account-org">
              {organisation.name}{' '}
              <span className={`badge plan-${organisation.plan}`}>
                {planName(organisation.plan)}
              </span>
            </span>
            <span className="account-email muted">{user.email}</span>
            <button
              type="button"
              className="button button-secondary button-small"
              onClick={handleSignOut}
              disabled={signingOut}
            >
              {signingOut ? 'Signing out…' : 'Sign out'}
            </button>
          </div>
        </div>
      </header>
      {mode === 'test' && <TestModeBanner onReset={() => setResets((n) => n + 1)} />}
      {signOutError !== null && (
        <div className="layout-message">
          <ErrorMessage error={signOutError} />
        </div>
      )}
      <div className="layout">
        <nav className="sidenav" aria-label="Settings">
          <p className="sidenav-title">Settings</p>
          <ul>
            {navLink(routes.keys, 'API keys')}
            {navLink(routes.plan, 'Plan')}
            {navLink(routes.webhooks, 'Webhooks')}
          </ul>
        </nav>
        <main id="main" className="content" tabIndex={-1}>
          {/* A page of one mode never shows (or changes) the other's data: it starts afresh. */}
          <Fragment key={`${mode}:${resets}`}>{children}</Fragment>
        </main>
      </div>
    </>
  );
}
