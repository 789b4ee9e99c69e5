import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const ACCEPTABLE = /^[\w.:@/+=-]{1,128}$/;

/** A fresh request id: `req_` and 32 hex digits. */
export const newRequestId = (): string => `req_${randomUUID().replaceAll('-', '')}`;

/** Echoes a sane `X-Request-Id` from the caller, or makes one; every response carries it. */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  const id = given && ACCEPTABLE.test(given) ? given : newRequestId();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
};
