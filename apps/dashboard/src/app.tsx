import { RouterProvider } from '@tanstack/react-router';
import { useEffect, useRef } from 'react';
import { ErrorMessage, Loading } from './components/feedback';
import { router } from './router';
import { useSession } from './session';

/** The session first: until the server says whether there is one, no page can be chosen. */
export function App() {
  const { state, reload } = useSession();

  // Signing in or out (or a session that ends) changes what the guards of the page shown say:
  // the router asks them again, and they send the browser on.
  const signedIn = state.status === 'signed-in';
  const known = useRef<boolean | null>(null);
  useEffect(() => {
    if (state.status !== 'signed-in' && state.status !== 'signed-out') return;
    if (known.current !== null && known.current !== signedIn) void router.invalidate();
    known.current = signedIn;
  }, [state.status, signedIn]);

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
  return <RouterProvider router={router} context={{ session: state }} />;
}
