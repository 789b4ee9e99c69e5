import {
  useEffect,
  useSyncExternalStore,
  type AnchorHTMLAttributes,
  type MouseEvent,
  type ReactNode,
} from 'react';
import { browserStore } from './browser-store';

/** `/dashboard/`: every route lives under it, and the server answers index.html for all of them. */
const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

export const routes = {
  signIn: '/signin',
  signUp: '/signup',
  keys: '/settings/keys',
  plan: '/settings/plan',
  webhooks: '/settings/webhooks',
} as const;

/** Pages behind sign-in; the only places `?next=` may send the browser after signing in. */
const PROTECTED: readonly string[] = [routes.keys, routes.plan, routes.webhooks];
export const isProtected = (path: string): boolean => PROTECTED.includes(path);

/** The sign-in page, remembering the page that asked for it. */
export function signInFor(path: string): string {
  return isProtected(path) ? `${routes.signIn}?next=${encodeURIComponent(path)}` : routes.signIn;
}

/** Where to go once signed in: the page remembered by `signInFor`, else the keys. */
export function afterSignIn(): string {
  const next = new URLSearchParams(window.location.search).get('next');
  return next && isProtected(next) ? next : routes.keys;
}

function currentPath(): string {
  const { pathname } = window.location;
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  return path.replace(/\/+$/, '') || '/';
}

// Back and forward change the path too.
const store = browserStore('popstate');

export function usePath(): string {
  return useSyncExternalStore(store.subscribe, currentPath);
}

export function href(path: string): string {
  return `${BASE}${path}`;
}

/** `path` may carry a query (`/signin?next=…`); routing looks at the path alone. */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (href(path) === `${window.location.pathname}${window.location.search}`) return;
  if (options.replace) window.history.replaceState(null, '', href(path));
  else window.history.pushState(null, '', href(path));
  store.changed();
}

/** Sends the browser elsewhere without adding a history entry (a redirect). */
export function Redirect({ to }: { to: string }): null {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & {
  to: string;
  children: ReactNode;
};

/** A real link (open in a new tab works) that navigates in place on a plain click. */
export function Link({ to, onClick, ...props }: LinkProps) {
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={href(to)} onClick={handleClick} {...props} />;
}
