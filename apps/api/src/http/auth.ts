import type { RequestHandler } from 'express';
import { rateLimitClassOf, type RateLimitClass, type RouteMetadata } from '@boxoffice/contract';
import { AppError } from '../core/errors';
import { iso } from '../core/iso-time';
import { authenticateKey, hintOf, isKeyFormat } from '../modules/api-keys/api-key.service';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AttemptLimiter } from './attempt-limit';
import { clientAddress } from './client-address';
import type { RequestCaller } from './locals';
import { rateLimitHeaders, type RateLimits } from './rate-limit';

/** An authentication scheme's name, worth repeating back (a key is never one: it has `_`). */
const SCHEME = /^[A-Za-z][A-Za-z0-9-]{0,19}$/;
const USE_BEARER = "send the API key as 'Authorization: Bearer bxo_live_…' (or bxo_test_…).";
const NEW_KEY = 'create a new one in the dashboard (Settings → API keys)';

const unauthorized = (code: string, message: string) =>
  new AppError(401, code, message, { 'WWW-Authenticate': 'Bearer realm="boxoffice"' });

/**
 * The key an Authorization header carries, or the 401 that says what to fix. Only a key in the
 * format of ours can be valid, so only that needs a lookup. The answer repeats at most a scheme's
 * name, never the credentials.
 */
function readKey(header: string | undefined): { key: string } | { refusal: AppError } {
  const [scheme = '', ...credentials] = (header ?? '').trim().split(/\s+/);
  if (!scheme) {
    return {
      refusal: unauthorized(
        'missing_api_key',
        "No API key provided. Send it in the Authorization header: 'Authorization: Bearer bxo_live_…' (or 'bxo_test_…' for test mode).",
      ),
    };
  }
  const malformed = (message: string) => ({
    refusal: unauthorized('malformed_authorization', message),
  });
  if (scheme.toLowerCase() !== 'bearer') {
    return malformed(
      credentials.length > 0 && SCHEME.test(scheme)
        ? `The Authorization header uses the ${scheme} scheme; ${USE_BEARER}`
        : `The Authorization header must be 'Bearer' and the key; ${USE_BEARER}`,
    );
  }
  const [key, ...extra] = credentials;
  if (!key) {
    return malformed(`The Authorization header has no API key after 'Bearer'; ${USE_BEARER}`);
  }
  if (extra.length > 0) {
    return malformed(
      `The Authorization header must hold one API key after 'Bearer'; ${USE_BEARER}`,
    );
  }
  if (!isKeyFormat(key)) {
    return malformed(
      "The API key is not in the format of Boxoffice keys, 'bxo_live_' (or 'bxo_test_') and 40 letters and digits; check that the whole key was copied.",
    );
  }
  return { key };
}

/**
 * The caller an Authorization header names, if it carries an active key; for the request log of a
 * request no route matched, which no access check saw.
 */
export async function callerOfHeader(
  em: EntityManager,
  header: string,
): Promise<RequestCaller | undefined> {
  const read = readKey(header);
  if ('refusal' in read) return undefined;
  const identity = await authenticateKey(em, read.key);
  if (identity.status !== 'active') return undefined;
  const { key } = identity;
  return {
    apiKeyId: key.apiKeyId,
    keyHint: hintOf(read.key),
    organisationId: key.organisationId,
    livemode: key.livemode,
  };
}

const PLAN_REQUIRED_MESSAGE =
  'API access requires the Pro plan. Upgrade in the dashboard under Settings → Plan.';

const TEST_MODE_ONLY_MESSAGE =
  'This endpoint works in test mode only: call it with a test key (bxo_test_…); a live key (bxo_live_…) never changes data through it.';

/** A refusal after authentication still reports the key's rate-limit window, without counting. */
async function refuse(
  rateLimits: RateLimits,
  apiKeyId: string,
  kind: RateLimitClass,
  error: AppError,
): Promise<never> {
  const state = await rateLimits.peek(apiKeyId, kind).catch(() => null);
  throw new AppError(error.status, error.code, error.message, state ? rateLimitHeaders(state) : {});
}

/**
 * The access checks of every public route, in the documented order: 401 (key) → 402 (plan) →
 * 403 (scope; then a live key on a test-mode-only route) → 429 (rate limit). Request validation
 * and the handler come after. Every 401 counts against the client's address; past its limit, a
 * request without a valid key gets a 429 instead. A valid key is never refused there (doors behind
 * one address must not stop because one device sends a wrong key): a missing or malformed key is
 * refused without a lookup, a well-formed one costs one indexed query. `onRateLimited` hears of
 * every rate-limit 429 (e.g. to count them).
 */
export function apiAccess(
  rateLimits: RateLimits,
  authFailures: AttemptLimiter,
  onRateLimited: (kind: RateLimitClass) => void = () => undefined,
): RequestHandler {
  return async (req, res, next) => {
    const read = readKey(req.get('authorization'));
    if ('refusal' in read) {
      await authFailures.consume(clientAddress(req));
      throw read.refusal;
    }
    const identity = await authenticateKey(res.locals.em, read.key);
    if (identity.status !== 'active') {
      // Past the limit, unknown and revoked keys get the same 429: it says no more than a 401.
      await authFailures.consume(clientAddress(req));
      throw identity.status === 'revoked'
        ? unauthorized(
            'revoked_api_key',
            `This API key (${hintOf(read.key)}) was revoked on ${iso(identity.revokedAt)}; ${NEW_KEY}.`,
          )
        : unauthorized(
            'invalid_api_key',
            `Invalid API key provided: ${hintOf(read.key)}. Check that the whole key was copied, or ${NEW_KEY}.`,
          );
    }
    const key = identity.key;
    res.locals.caller = {
      apiKeyId: key.apiKeyId,
      keyHint: hintOf(read.key),
      organisationId: key.organisationId,
      livemode: key.livemode,
    };

    const kind = rateLimitClassOf(req.method);
    if (key.plan !== 'pro') {
      await refuse(
        rateLimits,
        key.apiKeyId,
        kind,
        new AppError(402, 'plan_required', PLAN_REQUIRED_MESSAGE),
      );
    }

    const metadata = (req as { tsRestRoute?: { metadata?: RouteMetadata } }).tsRestRoute?.metadata;
    if (!metadata) throw new Error(`route ${req.method} ${req.path} declares no scope`);
    const { scope } = metadata;
    if (!key.scopes.includes(scope)) {
      await refuse(
        rateLimits,
        key.apiKeyId,
        kind,
        new AppError(403, 'missing_scope', `This API key lacks the '${scope}' scope`),
      );
    }
    if (metadata.testModeOnly && key.livemode) {
      await refuse(
        rateLimits,
        key.apiKeyId,
        kind,
        new AppError(403, 'test_mode_only', TEST_MODE_ONLY_MESSAGE),
      );
    }

    let state;
    try {
      state = await rateLimits.consume(key.apiKeyId, kind);
    } catch (error) {
      if (error instanceof AppError && error.status === 429) onRateLimited(kind);
      throw error;
    }
    res.set(rateLimitHeaders(state));
    res.locals.auth = {
      apiKeyId: key.apiKeyId,
      organisationId: key.organisationId,
      livemode: key.livemode,
      scopes: key.scopes,
    };
    next();
  };
}
