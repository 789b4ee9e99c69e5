import type { RequestHandler } from 'express';
import { serviceUnavailable } from '../core/errors';
import { JSON_CONTENT_TYPE } from './json-response';

/**
 * Answers 503 (`Retry-After`) when a request is still unanswered after `ms`: however its database
 * calls queue and time out one after another, a caller never waits longer than the documented
 * bound. The work itself is not interrupted; whatever it answers later is dropped. The 503 is
 * written directly, past the route's own `res.json` (which the idempotency layer wraps to record
 * the route's answer, not this one). A request whose body is still arriving gets the 503 and its
 * connection closes (`createHttpServer`). Without `ms`, requests have no deadline.
 */
export function requestDeadline(ms: number | undefined): RequestHandler {
  if (ms === undefined) return (_req, _res, next) => next();
  return (req, res, next) => {
    const timer = setTimeout(() => {
      // Answered already, or the connection is closing after another answer (a 408 for a body
      // still arriving): one answer per request.
      if (res.headersSent || !req.socket.writable) return;
      const error = serviceUnavailable();
      const body = JSON.stringify({ error: error.message, code: error.code });
      res.writeHead(error.status, {
        ...error.headers,
        'Content-Type': JSON_CONTENT_TYPE,
        'Content-Length': Buffer.byteLength(body),
      });
      res.end(body);
    }, ms);
    res.once('close', () => clearTimeout(timer));
    next();
  };
}
