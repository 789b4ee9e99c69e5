import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const ACCEPTABLE = /^[\w.:@/+=-]{1,128}$/;

/** Echoes a sane `X-Request-Id` from the caller, or makes one; every response carries it. */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  const id = given && ACCEPTABLE.test(given) ? given : `req_${randomUUID().replaceAll('-', '')}`;
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
};
