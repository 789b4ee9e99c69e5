import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { canonicalJson } from '../core/canonical-json';
import { badRequest } from '../core/errors';

/**
 * Reads `Idempotency-Key` on POST: checks it and fingerprints the request (method, path and body),
 * for the route's write to run once per key (see `http/write.ts`).
 */
export const idempotencyKey: RequestHandler = (req, res, next) => {
  const key = req.get('idempotency-key');
  if (req.method !== 'POST' || key === undefined) return next();
  if (key.length === 0 || key.length > 255) {
    throw badRequest(
      'Idempotency-Key must be between 1 and 255 characters',
      'invalid_idempotency_key',
    );
  }
  const fingerprint = createHash('sha256')
    .update(`${req.method} ${req.baseUrl}${req.path}\n${canonicalJson(req.body)}`)
    .digest('hex');
  res.locals.idempotency = { key, fingerprint };
  next();
};
