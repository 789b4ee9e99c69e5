import { Link } from '@tanstack/react-router';
import { Fragment, useState, type ReactNode } from 'react';
import { planName } from '../format';
import { useMode } from '../mode';
import { useSession, useSignedIn } from '../session';
import { ErrorMessage } from './feedback';
import { ModeSwitch, TestModeBanner } from './test-mode';

/** The frame of every signed-in page: the header, the test-mode banner and the navigation. */
export function Shell({ children }: { children: ReactNode }) {
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
      // Signed out, the page leaves for the sign-in (src/router.tsx).
      await signOut();
    } catch (error) {
      setSignOutError(error);
      setSigningOut(false);
    }
  };

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <div className="topbar-start">
            <Link to="/settings/keys" className="brand">
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
        <div className="sidenav">
          <nav aria-label="API activity">
            <p className="sidenav-title">API activity</p>
            <ul>
              <li>
                <Link to="/logs" className="nav-link" activeOptions={{ includeSearch: false }}>
                  Logs
                </Link>
              </li>
              <li>
                <Link to="/usage" className="nav-link" activeOptions={{ includeSearch: false }}>
                  Usage
                </Link>
              </li>
              <li>
                <Link to="/exports" className="nav-link">
                  Exports
                </Link>
              </li>
            </ul>
          </nav>
          <nav aria-label="Settings">
            <p className="sidenav-title">Settings</p>
            {/* A link to the page shown is marked `aria-current="page"` by the router. */}
            <ul>
              <li>
                <Link to="/settings/keys" className="nav-link">
                  API keys
                </Link>
              </li>
              <li>
                <Link to="/settings/plan" className="nav-link">
                  Plan
                </Link>
              </li>
              <li>
                <Link to="/settings/webhooks" className="nav-link">
                  Webhooks
                </Link>
              </li>
            </ul>
          </nav>
        </div>
        <main id="main" className="content" tabIndex={-1}>
          {/* A page of one mode never shows (or changes) the other's data: it starts afresh. */}
          <Fragment key={`${mode}:${resets}`}>{children}</Fragment>
        </main>
      </div>
    </>
  );
}

export function NotFound() {
  return (
    <>
      <h1 tabIndex={-1} data-page-heading>
        Page not found
      </h1>
      <p>
        There is nothing at this address. <Link to="/settings/keys">Go to your API keys</Link>.
      </p>
    </>
  );
}
