import { initClient, tsRestFetchApi } from '@ts-rest/core';
import {
  CSRF_HEADER,
  DASHBOARD_API_BASE_PATH,
  dashboardContract,
  MODE_HEADER,
} from '@boxoffice/dashboard-contract';
import { currentMode } from './mode';

/** The session's CSRF token: sent back on every state-changing request. */
let csrfToken: string | null = null;
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when the server says the session is gone (signed out elsewhere, or expired). */
let onUnauthorized: () => void = () => undefined;
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const SIGN_IN_PATHS = new Set<string>([
  dashboardContract.login.path,
  dashboardContract.signup.path,
]);

export const api = initClient(dashboardContract, {
  baseUrl: DASHBOARD_API_BASE_PATH,
  credentials: 'same-origin',
  throwOnUnknownStatus: false,
  api: async (args) => {
    // Every request names the mode the page shows; routes that act on one environment follow it.
    const headers: Record<string, string> = { ...args.headers, [MODE_HEADER]: currentMode() };
    if (!SAFE_METHODS.has(args.method.toUpperCase()) && csrfToken) headers[CSRF_HEADER] = csrfToken;
    const response = await tsRestFetchApi({ ...args, headers });
    // A wrong password is a 401 too: only a request that needs the session means it has ended.
    if (response.status === 401 && !SIGN_IN_PATHS.has(args.route.path)) onUnauthorized();
    return response;
  },
});

/** A failed request, with the server's `error` message and `code` when it sent them. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

function codeOf(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && 'code' in body) {
    const { code } = body;
    if (typeof code === 'string' && code) return code;
  }
  return undefined;
}

function messageOf(status: number, body: unknown): string {
  if (typeof body === 'object' && body !== null && 'error' in body) {
    const { error } = body;
    if (typeof error === 'string' && error) return error;
  }
  if (status === 429) return 'Too many attempts. Wait a minute and try again.';
  if (status >= 500) return `The server could not answer (${status}). Try again in a moment.`;
  return `The request failed (${status}).`;
}

function hasStatus<R extends { status: number }, S extends R['status']>(
  response: R,
  status: S,
): response is Extract<R, { status: S }> {
  return response.status === status;
}

/**
 * The body of a response with the expected status; anything else becomes an `ApiError` carrying
 * the server's message.
 */
export function unwrap<R extends { status: number; body: unknown }, S extends R['status']>(
  response: R,
  status: S,
): Extract<R, { status: S }>['body'] {
  if (!hasStatus(response, status)) {
    throw new ApiError(
      response.status,
      messageOf(response.status, response.body),
      codeOf(response.body),
    );
  }
  return response.body;
}

/** A message to show for anything a request may throw, including a network failure. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError)
    return 'Could not reach the server. Check your connection and try again.';
  return 'Something went wrong. Try again.';
}
