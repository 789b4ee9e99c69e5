import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import type { AppRoute } from '@ts-rest/core';
import { RequestValidationError } from '@ts-rest/express';
import type { Logger } from 'pino';
import { AppError } from '../core/errors';
import { QUERY_TIMEOUT_MESSAGE } from '../db/orm';
import { CONTRACT_METHODS } from './routes';
import { describeRequestValidationError } from './validation';

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '57014', // query_canceled: statement_timeout
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

const UNAVAILABLE_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'connection is closed',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  QUERY_TIMEOUT_MESSAGE,
];

/** Whether an error means the database (or another backing store) cannot be reached right now. */
export function isUnavailableError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const candidate = e as { name?: string; code?: unknown; message?: unknown; cause?: unknown };
    if (candidate.name === 'ConnectionException') return true;
    if (typeof candidate.code === 'string' && UNAVAILABLE_CODES.has(candidate.code)) return true;
    if (
      typeof candidate.message === 'string' &&
      UNAVAILABLE_MESSAGES.some((text) => (candidate.message as string).includes(text))
    ) {
      return true;
    }
    e = candidate.cause;
  }
  return false;
}

/** ts-rest puts the contract's route of a request on it. */
type RoutedRequest = Request & { tsRestRoute?: AppRoute };

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
}

/** Turns every error into `{ error, code }` with the right status; internals never leave the server. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.writableEnded) {
      // Answered already (the request deadline's 503): the route's late failure has no one to go to.
      logger.debug({ err: error, requestId: res.locals.requestId }, 'error after the answer');
      return;
    }
    if (res.headersSent) {
      next(error);
      return;
    }
    const requestId = res.locals.requestId as string | undefined;
    const send = (
      status: number,
      body: Record<string, unknown>,
      headers: Record<string, string> = {},
    ) => {
      res.set(headers).status(status).json(body);
    };

    if (error instanceof AppError) {
      send(error.status, { error: error.message, code: error.code, ...error.more }, error.headers);
      return;
    }
    if (error instanceof RequestValidationError) {
      const problems = describeRequestValidationError(error, (req as RoutedRequest).tsRestRoute);
      send(400, {
        error: problems[0]?.message ?? 'invalid request',
        code: 'validation_failed',
        details: problems,
      });
      return;
    }
    const parserError = error as BodyParserError;
    switch (parserError.type) {
      case 'entity.parse.failed':
        send(400, { error: 'request body is not valid JSON', code: 'malformed_json' });
        return;
      case 'entity.too.large':
        send(413, {
          error: `request body is larger than the limit of ${parserError.limit ?? 'the server'} bytes`,
          code: 'body_too_large',
        });
        return;
      case 'encoding.unsupported':
      case 'charset.unsupported':
        send(400, {
          error: 'request body must be UTF-8 encoded JSON',
          code: 'unsupported_encoding',
        });
        return;
      case 'request.aborted':
        return;
    }
    if (error instanceof URIError) {
      send(400, { error: 'the request path is not valid URL encoding', code: 'invalid_path' });
      return;
    }
    if (isUnavailableError(error)) {
      logger.warn({ err: error, requestId }, 'backing store unavailable');
      send(
        503,
        { error: 'Service temporarily unavailable', code: 'service_unavailable' },
        {
          'Retry-After': '5',
        },
      );
      return;
    }
    if (parserError.status && parserError.status >= 400 && parserError.status < 500) {
      send(parserError.status, { error: 'the request could not be read', code: 'invalid_request' });
      return;
    }
    logger.error(
      { err: error, requestId, method: req.method, url: req.originalUrl },
      'unexpected error',
    );
    send(500, { error: 'Internal server error', code: 'internal_error', request_id: requestId });
  };
}

/**
 * A path that is a route's own (no parameter in its pattern) asked with a method that route lacks
 * gets the 405 of `notFoundHandler` before a route with a parameter there takes it:
 * `GET /checkins/batch` is not a read of the check-in `batch`. (HEAD goes where GET does.)
 */
export const ownPathMethods: RequestHandler = (req, res, next) => {
  const own = CONTRACT_METHODS.ownedBy(req.originalUrl.split('?')[0] ?? '');
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  if (own && !own.includes(method)) {
    notFoundHandler(req, res, next);
    return;
  }
  next();
};

/**
 * Everything no route matched: a known path asked with a method it lacks is a JSON 405 with
 * `Allow`, anything else a JSON 404; each names the method and path.
 */
export const notFoundHandler: RequestHandler = (req, res) => {
  const path = req.originalUrl.split('?')[0] ?? '';
  const allowed = CONTRACT_METHODS.at(path);
  if (allowed) {
    res
      .set('Allow', allowed.join(', '))
      .status(405)
      .json({
        error: `method not allowed: ${req.method} ${path} (allowed: ${allowed.join(', ')})`,
        code: 'method_not_allowed',
      });
    return;
  }
  res.status(404).json({
    error: `route not found: ${req.method} ${path}`,
    code: 'route_not_found',
  });
};
