import type { RequestHandler } from 'express';
import { rateLimitClassOf, type RateLimitClass, type RouteMetadata } from '@boxoffice/contract';
import { AppError } from '../core/errors';
import { authenticateKey } from '../modules/api-keys/api-key.service';
import type { AttemptLimiter } from './attempt-limit';
import { clientAddress } from './client-address';
import { rateLimitHeaders, type RateLimits } from './rate-limit';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

const invalidKey = () =>
  new AppError(401, 'invalid_api_key', 'Invalid or missing API key', {
    'WWW-Authenticate': 'Bearer realm="boxoffice"',
  });

const PLAN_REQUIRED_MESSAGE =
  'API access requires the Pro plan. Upgrade in the dashboard under Settings → Plan.';

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
 * 403 (scope) → 429 (rate limit). Request validation and the handler come after. Before all of
 * them, an address with too many 401s gets a 429 without a key lookup: guessing keys must not
 * cost a database query each. `onRateLimited` hears of every rate-limit 429 (e.g. to count them).
 */
export function apiAccess(
  rateLimits: RateLimits,
  authFailures: AttemptLimiter,
  onRateLimited: (kind: RateLimitClass) => void = () => undefined,
): RequestHandler {
  return async (req, res, next) => {
    const address = clientAddress(req);
    await authFailures.check(address);
    const match = BEARER.exec(req.get('authorization') ?? '');
    const key = match?.[1] ? await authenticateKey(res.locals.em, match[1]) : null;
    if (!key) {
      await authFailures.record(address);
      throw invalidKey();
    }

    const kind = rateLimitClassOf(req.method);
    if (key.plan !== 'pro') {
      await refuse(
        rateLimits,
        key.apiKeyId,
        kind,
        new AppError(402, 'plan_required', PLAN_REQUIRED_MESSAGE),
      );
    }

    const scope = (req as { tsRestRoute?: { metadata?: RouteMetadata } }).tsRestRoute?.metadata
      ?.scope;
    if (!scope) throw new Error(`route ${req.method} ${req.path} declares no scope`);
    if (!key.scopes.includes(scope)) {
      await refuse(
        rateLimits,
        key.apiKeyId,
        kind,
        new AppError(403, 'missing_scope', `This API key lacks the '${scope}' scope`),
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
      scopes: key.scopes,
    };
    next();
  };
}
