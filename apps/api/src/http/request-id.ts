import type { RequestHandler } from 'express';
import { newId } from '../core/ids';

const ACCEPTABLE = /^[\w.:@/+=-]{1,128}$/;

/**
 * A fresh request id, `req_…`, shaped as every id the API makes: its time first, so the request
 * log's indexes on it grow at their end instead of at random places.
 */
export const newRequestId = (): string => newId('request');

/** Echoes a sane `X-Request-Id` from the caller, or makes one; every response carries it. */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  const id = given && ACCEPTABLE.test(given) ? given : newRequestId();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
};
