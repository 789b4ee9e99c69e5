import express, { type RequestHandler } from 'express';
import { AppError } from './errors';

/**
 * Parses JSON bodies of POST/PATCH after the access checks, so an unauthenticated caller is
 * refused before its body is read. Any other content type is a 400 naming the expected one.
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  const parse = express.json({ limit: limitBytes, strict: true, type: () => true });
  return [
    (req, _res, next) => {
      if (req.method !== 'POST' && req.method !== 'PATCH' && req.method !== 'PUT') return next();
      const type = req.get('content-type');
      const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding');
      if (!hasBody && !type) {
        req.body = undefined;
        return next();
      }
      if (!type || !/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
        throw new AppError(
          400,
          'unsupported_content_type',
          'Content-Type must be application/json',
        );
      }
      next();
    },
    (req, res, next) => {
      if (req.method === 'GET' || req.method === 'HEAD') return next();
      parse(req, res, next);
    },
  ];
}
