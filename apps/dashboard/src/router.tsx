import {
  createRootRouteWithContext,
  createRoute,
  createRouter,
  lazyRouteComponent,
  Outlet,
  redirect,
  useMatches,
  useRouter,
} from '@tanstack/react-router';
import { useEffect, type ReactNode } from 'react';
import { RequestLogQuerySchema, UsageWindowSchema } from '@boxoffice/dashboard-contract';
import { z } from 'zod';
import { NotFound, Shell } from './components/shell';
import { useMode } from './mode';
import { SignInPage, SignUpPage } from './pages/auth-pages';
import { ExportsPage } from './pages/exports-page';
import { KeysPage } from './pages/keys-page';
import { LogPage, LogsPage } from './pages/logs-page';
import { PlanPage } from './pages/plan-page';
import { WebhooksPage } from './pages/webhooks-page';
import { useSession, type SessionState } from './session';

/**
 * The dashboard's pages, under `/dashboard/` (the server answers index.html for every path there).
 * A page is one route here and one component: its path, its title, its search parameters (typed,
 * and checked with zod, so a link to it is checked too) and whether it needs a session.
 */

declare module '@tanstack/react-router' {
  interface StaticDataRouteOption {
    /** The page's name in the window title. */
    title?: string;
  }
}

/** What the pages' guards go by: the session as the server last said. */
interface RouterContext {
  session: SessionState;
}

const rootRoute = createRootRouteWithContext<RouterContext>()({ component: Root });

const SignInSearchSchema = z.object({
  /** The page that asked for the sign-in (`/settings/plan?…`), to return to once signed in. */
  next: z.string().optional().catch(undefined),
});

// Signed out: the sign-in and sign-up pages. A signed-in visitor goes on to the app.
const signedOut = createRoute({
  getParentRoute: () => rootRoute,
  id: 'signed-out',
  beforeLoad: ({ context, location }) => {
    if (context.session.status === 'signed-in') {
      const { next } = SignInSearchSchema.parse(location.search);
      throw redirect({ href: pageAfterSignIn(next), replace: true });
    }
  },
});

const signIn = createRoute({
  getParentRoute: () => signedOut,
  path: 'signin',
  validateSearch: SignInSearchSchema,
  staticData: { title: 'Sign in' },
  component: SignInPage,
});

const signUp = createRoute({
  getParentRoute: () => signedOut,
  path: 'signup',
  staticData: { title: 'Create your organisation' },
  component: SignUpPage,
});

// Signed in: the pages of the app, in its frame. A signed-out visitor signs in first.
const signedIn = createRoute({
  getParentRoute: () => rootRoute,
  id: 'signed-in',
  beforeLoad: ({ context, location }) => {
    const { session } = context;
    if (session.status === 'signed-in') return;
    // Back here once signed in; not after signing out, though: no page asked for it then.
    const left = session.status === 'signed-out' && session.left;
    throw redirect({ to: '/signin', search: left ? {} : { next: location.href }, replace: true });
  },
  component: () => (
    <SignedIn>
      <Outlet />
    </SignedIn>
  ),
});

const keys = createRoute({
  getParentRoute: () => signedIn,
  path: 'settings/keys',
  staticData: { title: 'API keys' },
  component: KeysPage,
});

const plan = createRoute({
  getParentRoute: () => signedIn,
  path: 'settings/plan',
  staticData: { title: 'Plan' },
  component: PlanPage,
});

const webhooks = createRoute({
  getParentRoute: () => signedIn,
  path: 'settings/webhooks',
  staticData: { title: 'Webhooks' },
  component: WebhooksPage,
});

/**
 * A search parameter of the URL: checked as the API would, and dropped (not an error page) when
 * it is not a value the page can use. Digits arrive as numbers (`?request_id=123`).
 */
const param = <T extends z.ZodTypeAny>(schema: T) => schema.optional().catch(undefined);
const text = (max: number) => param(z.coerce.string().min(1).max(max));

const logQuery = RequestLogQuerySchema.shape;

/** The Logs page's filters and the cursor of the page shown: the API's query, in the URL. */
const LogsSearchSchema = z.object({
  request_id: text(128),
  status_class: param(logQuery.status_class.unwrap()),
  status: param(logQuery.status.unwrap()),
  method: param(logQuery.method.unwrap()),
  key_id: text(100),
  route: text(200),
  cursor: param(logQuery.cursor.unwrap()),
});
export type LogsSearch = z.infer<typeof LogsSearchSchema>;

const logs = createRoute({
  getParentRoute: () => signedIn,
  path: 'logs',
  validateSearch: LogsSearchSchema,
  staticData: { title: 'Logs' },
  component: LogsPage,
});

// One request; it keeps the list's filters, for the way back to it.
const log = createRoute({
  getParentRoute: () => signedIn,
  path: 'logs/$id',
  validateSearch: LogsSearchSchema,
  staticData: { title: 'Request' },
  component: LogPage,
});

const UsageSearchSchema = z.object({
  window: UsageWindowSchema.default('24h').catch('24h'),
  key_id: text(100),
});
export type UsageSearch = z.infer<typeof UsageSearchSchema>;

const usage = createRoute({
  getParentRoute: () => signedIn,
  path: 'usage',
  validateSearch: UsageSearchSchema,
  staticData: { title: 'Usage' },
  // Its charts (uPlot) load with it, not with every page.
  component: lazyRouteComponent(() => import('./pages/usage-page'), 'UsagePage'),
});

const exportsPage = createRoute({
  getParentRoute: () => signedIn,
  path: 'exports',
  staticData: { title: 'Exports' },
  component: ExportsPage,
});

// Addresses of no page of their own: the keys when signed in, else the sign-in.
const goHome = ({ context }: { context: RouterContext }) => {
  throw redirect({
    to: context.session.status === 'signed-in' ? '/settings/keys' : '/signin',
    replace: true,
  });
};
const home = createRoute({ getParentRoute: () => rootRoute, path: '/', beforeLoad: goHome });
const settings = createRoute({
  getParentRoute: () => rootRoute,
  path: 'settings',
  beforeLoad: goHome,
});

// Any other address: a page that says so, in the app's frame; signed out, the sign-in.
const notFound = createRoute({
  getParentRoute: () => rootRoute,
  path: '$',
  staticData: { title: 'Page not found' },
  beforeLoad: ({ context }) => {
    if (context.session.status !== 'signed-in') throw redirect({ to: '/signin', replace: true });
  },
  component: () => (
    <SignedIn>
      <NotFound />
    </SignedIn>
  ),
});

const routeTree = rootRoute.addChildren([
  signedOut.addChildren([signIn, signUp]),
  signedIn.addChildren([keys, plan, webhooks, logs, log, usage, exportsPage]),
  home,
  settings,
  notFound,
]);

export const router = createRouter({
  routeTree,
  basepath: import.meta.env.BASE_URL,
  // Set by the App before the router renders (RouterProvider's `context`).
  context: { session: { status: 'loading' } },
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}

/**
 * Where to go once signed in: the page `next` names if it is one of the app's (so a link cannot
 * send the browser anywhere else), else the keys.
 */
function pageAfterSignIn(next: string | undefined): string {
  if (!next?.startsWith('/') || next.startsWith('//')) return keys.fullPath;
  const [branch] = router.getMatchedRoutes(new URL(next, window.location.origin).pathname);
  return branch.includes(signedIn) ? next : keys.fullPath;
}

/**
 * A signed-in page in the app's frame. A session that has just ended shows nothing more: the
 * router is on its way to the sign-in (the App invalidates the routes when the session changes).
 */
function SignedIn({ children }: { children: ReactNode }) {
  const { state } = useSession();
  if (state.status !== 'signed-in') return null;
  return <Shell>{children}</Shell>;
}

/**
 * Every page: the window's title names it (and test mode), and after a move to another page
 * focus goes to its heading, as a page load would put the reader at its start.
 */
function Root() {
  const router = useRouter();
  const { state } = useSession();
  const test = useMode() === 'test' && state.status === 'signed-in';
  const title = useMatches({
    select: (matches) => matches.findLast((match) => match.staticData.title)?.staticData.title,
  });

  useEffect(() => {
    document.title = `${test ? 'Test mode · ' : ''}${title ?? 'Dashboard'} · Boxoffice`;
  }, [title, test]);

  useEffect(
    () =>
      router.subscribe('onRendered', ({ fromLocation, pathChanged }) => {
        if (fromLocation && pathChanged) {
          document.querySelector<HTMLElement>('[data-page-heading]')?.focus();
        }
      }),
    [router],
  );

  return <Outlet />;
}
