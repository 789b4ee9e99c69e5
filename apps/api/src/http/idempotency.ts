import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
} from '../modules/idempotency/idempotency.service';
import { AppError, badRequest, unprocessable } from './errors';
import { tenantOf } from './locals';

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Answers of the operation itself are stored and replayed: successes, and the 404 and 422 of what
 * the request referred to. A request the server could not accept as sent (400, 413) gets the same
 * answer again whenever it is repeated, so storing it would only let a client fill the table;
 * 409, 429 and 5xx leave the key free for a retry.
 */
const isReplayable = (status: number): boolean =>
  (status >= 200 && status < 300) || status === 404 || status === 422;

/**
 * `Idempotency-Key` on POST: the first final answer is stored (before it is sent, so an
 * acknowledged answer is never lost) and replayed with `Idempotent-Replayed: true`.
 */
export function idempotency(logger: Logger): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (req.method !== 'POST' || key === undefined) return next();
    if (key.length === 0 || key.length > 255) {
      throw badRequest(
        'Idempotency-Key must be between 1 and 255 characters',
        'invalid_idempotency_key',
      );
    }
    const { em, apiKeyId } = tenantOf(res);
    const fingerprint = createHash('sha256')
      .update(`${req.method} ${req.baseUrl}${req.path}\n${canonicalJson(req.body)}`)
      .digest('hex');

    const claim = await claimIdempotencyKey(em, apiKeyId, key, fingerprint);
    switch (claim.kind) {
      case 'replay':
        res.set('Idempotent-Replayed', 'true').status(claim.status).json(claim.body);
        return;
      case 'mismatch':
        throw unprocessable(
          'Idempotency-Key has already been used with a different request',
          'idempotency_key_reused',
        );
      case 'in_flight':
        throw new AppError(
          409,
          'idempotency_in_flight',
          'A request with this Idempotency-Key is still in progress; retry shortly',
          { 'Retry-After': '1' },
        );
      case 'claimed':
        break;
    }

    const send = res.json.bind(res);
    res.json = (body: unknown) => {
      const status = res.statusCode;
      const record = isReplayable(status)
        ? completeIdempotencyKey(em, apiKeyId, key, status, body)
        : releaseIdempotencyKey(em, apiKeyId, key);
      record
        .catch((error: unknown) =>
          logger.error({ err: error }, 'could not record idempotent response'),
        )
        .finally(() => {
          // The request deadline may have answered while the route was still working.
          if (!res.headersSent) send(body);
        });
      return res;
    };
    next();
  };
}
