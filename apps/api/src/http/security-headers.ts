import type { RequestHandler } from 'express';
import helmet from 'helmet';

type Directives = Record<string, string[]>;

/**
 * Every page of this origin runs only its own scripts: the dashboard holds a session that can
 * create API keys, so nothing else may run on, frame, or post forms from the origin. Styles are
 * this origin's files only; pages that need more say so (see `contentSecurityPolicy`).
 */
const DIRECTIVES: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  // data: for the pages' empty icon (`<link rel="icon" href="data:,">`, no /favicon.ico request).
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'frame-ancestors': ["'none'"],
  'form-action': ["'self'"],
};

/** This origin's Content-Security-Policy, with `extra` sources added to some directives. */
export function contentSecurityPolicy(extra: Directives = {}): RequestHandler {
  const directives: Directives = { ...DIRECTIVES };
  for (const [name, sources] of Object.entries(extra)) {
    directives[name] = [...(directives[name] ?? []), ...sources];
  }
  // No `upgrade-insecure-requests`: it breaks a server reached over plain HTTP (development);
  // in production HSTS makes the browser use HTTPS for this origin anyway.
  return helmet.contentSecurityPolicy({ useDefaults: false, directives });
}

export interface SecurityHeaderOptions {
  /** Send Strict-Transport-Security: only where the server is reached over HTTPS (production). */
  hsts: boolean;
}

/**
 * The security headers of every response, JSON or page: the CSP above, no framing at all
 * (`X-Frame-Options: DENY` for browsers without `frame-ancestors`), `nosniff`, no referrer,
 * and helmet's other defaults (cross-origin isolation of the window and of resources).
 */
export function securityHeaders(options: SecurityHeaderOptions): RequestHandler[] {
  return [
    helmet({
      contentSecurityPolicy: false,
      xFrameOptions: { action: 'deny' },
      referrerPolicy: { policy: 'no-referrer' },
      // helmet's default: a year, subdomains included.
      strictTransportSecurity: options.hsts,
    }),
    contentSecurityPolicy(),
  ];
}

/**
 * The headers of the JSON API (`/api/v1`), which no browser renders: a policy that allows
 * nothing at all, no framing, `nosniff`, no referrer, and HSTS in production. A short, fixed set,
 * computed once: the page headers above are twice the size of a typical list answer's body.
 */
export function apiSecurityHeaders(options: SecurityHeaderOptions): RequestHandler {
  const headers: Record<string, string> = {
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    ...(options.hsts ? { 'Strict-Transport-Security': 'max-age=31536000; includeSubDomains' } : {}),
  };
  const entries = Object.entries(headers);
  return (_req, res, next) => {
    for (const [name, value] of entries) res.setHeader(name, value);
    next();
  };
}
