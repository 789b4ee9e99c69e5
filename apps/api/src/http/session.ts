import { timingSafeEqual } from 'node:crypto';
import { parseCookie } from 'cookie';
import type { CookieOptions, Request, RequestHandler, Response } from 'express';
import { CSRF_HEADER } from '@boxoffice/dashboard-contract';
import { AppError } from '../core/errors';
import { findSession, SESSION_TTL_MS } from '../modules/accounts/account.service';

export const SESSION_COOKIE = 'bxo_session';

/** Routes a visitor without a session may call. */
const PUBLIC_PATHS = new Set(['/signup', '/login']);

/** Percent-decoding that fails is no cookie at all: a broken one must not break the dashboard. */
const decodeOrSkip = (value: string): string | undefined => {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
};

function readCookie(req: Request, name: string): string | undefined {
  return parseCookie(req.get('cookie') ?? '', { decode: decodeOrSkip })[name] || undefined;
}

const sameText = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/** The session token of the request's cookie, if any. */
export const sessionToken = (req: Request): string | undefined => readCookie(req, SESSION_COOKIE);

/** A browser's cross-site request names its origin; it must be this server's. */
function sameOrigin(req: Request): boolean {
  const origin = req.get('origin');
  if (!origin) return true;
  try {
    return new URL(origin).host === req.get('host');
  } catch {
    return false;
  }
}

export interface SessionCookies {
  set(res: Response, token: string): void;
  clear(res: Response): void;
}

/** `HttpOnly`, `SameSite=Lax`, scoped to `/dashboard`, and `Secure` outside development. */
export function sessionCookies(secure: boolean): SessionCookies {
  const options: CookieOptions = { httpOnly: true, sameSite: 'lax', secure, path: '/dashboard' };
  return {
    set: (res, token) => res.cookie(SESSION_COOKIE, token, { ...options, maxAge: SESSION_TTL_MS }),
    clear: (res) => res.clearCookie(SESSION_COOKIE, options),
  };
}

/**
 * The dashboard API's guard: finds the session of the cookie; refuses signed-out callers (401)
 * except on sign-up and sign-in; and refuses state-changing requests without the session's CSRF
 * token in `X-CSRF-Token` (403). Sign-up and sign-in, which have no session yet, are protected by
 * the same-origin check and by requiring a JSON body, which a cross-site form cannot send.
 */
export const dashboardSession: RequestHandler = async (req, res, next) => {
  const changing = req.method !== 'GET' && req.method !== 'HEAD';
  if (changing && !sameOrigin(req)) {
    throw new AppError(403, 'cross_origin', 'Cross-origin requests are not allowed');
  }
  const token = sessionToken(req);
  const active = token ? await findSession(res.locals.em, token) : null;
  if (active) res.locals.dashboard = active;
  if (PUBLIC_PATHS.has(req.path)) return next();
  if (!active) throw new AppError(401, 'not_signed_in', 'Sign in to continue');
  if (changing && !sameText(req.get(CSRF_HEADER) ?? '', active.session.csrfToken)) {
    throw new AppError(403, 'csrf_failed', 'Missing or invalid CSRF token; reload the page');
  }
  next();
};
