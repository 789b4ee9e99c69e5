import type { Login, Organisation, Session, Signup } from '@boxoffice/dashboard-contract';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
  type ReactNode,
} from 'react';
import { api, ApiError, setCsrfToken, setUnauthorizedHandler, unwrap } from './api';

export type SessionState =
  | { status: 'loading' }
  | { status: 'error'; error: unknown }
  /** `left`: the user signed out here, so no page is waiting for them to sign in again. */
  | { status: 'signed-out'; left: boolean }
  | { status: 'signed-in'; session: Session };

interface SessionContextValue {
  state: SessionState;
  reload: () => void;
  signUp: (input: Signup) => Promise<void>;
  signIn: (input: Login) => Promise<void>;
  signOut: () => Promise<void>;
  /** Keeps the header and banners in step after a plan change. */
  updateOrganisation: (changes: Partial<Organisation>) => void;
}

const SessionContext = createContext<SessionContextValue | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);

  const signedIn = useCallback((session: Session) => {
    setCsrfToken(session.csrf_token);
    setState({ status: 'signed-in', session });
  }, []);
  const signedOut = useCallback((left = false) => {
    setCsrfToken(null);
    setState({ status: 'signed-out', left });
  }, []);

  useEffect(() => {
    setUnauthorizedHandler(() => signedOut());
  }, [signedOut]);

  useEffect(() => {
    let current = true;
    api.session().then(
      (response) => {
        if (!current) return;
        if (response.status === 200) signedIn(response.body);
        else if (response.status === 401) signedOut();
        else setState({ status: 'error', error: new ApiError(response.status, 'No session') });
      },
      (error: unknown) => {
        if (current) setState({ status: 'error', error });
      },
    );
    return () => {
      current = false;
    };
  }, [attempt, signedIn, signedOut]);

  const value = useMemo<SessionContextValue>(
    () => ({
      state,
      reload: () => {
        setState({ status: 'loading' });
        setAttempt((n) => n + 1);
      },
      signUp: async (body) => signedIn(unwrap(await api.signup({ body }), 201)),
      signIn: async (body) => signedIn(unwrap(await api.login({ body }), 200)),
      signOut: async () => {
        const response = await api.logout();
        // Already signed out on the server is as good as signed out now.
        if (response.status !== 401) unwrap(response, 204);
        signedOut(true);
      },
      updateOrganisation: (changes) =>
        setState((previous) =>
          previous.status === 'signed-in'
            ? {
                status: 'signed-in',
                session: {
                  ...previous.session,
                  organisation: { ...previous.session.organisation, ...changes },
                },
              }
            : previous,
        ),
    }),
    [state, signedIn, signedOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession needs a SessionProvider');
  return value;
}

/** The signed-in session; only for pages rendered behind the sign-in check. */
export function useSignedIn(): Session & Pick<SessionContextValue, 'updateOrganisation'> {
  const { state, updateOrganisation } = useSession();
  if (state.status !== 'signed-in') throw new Error('useSignedIn needs a signed-in session');
  return { ...state.session, updateOrganisation };
}
