import type { Response } from 'express';

/** The type of every JSON answer. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * `res.json` for this app (installed on `app.response`, so every route, ts-rest's included, answers
 * through it): the body as JSON text, `Content-Type` (unless the route set its own) and
 * `Content-Length`, in one write. What Express's own `res.json` and `res.send` do for this app,
 * without their general steps: the app's JSON settings looked up at every answer, the type given a
 * charset by parsing and formatting it again, and the freshness check, which only answers 304 to
 * validators this API never sends (no ETag, no Last-Modified). As Express: no body for HEAD; none and no content
 * headers for 204 and 304; an empty one for 205.
 */
export function answerJson(this: Response, body: unknown): Response {
  const status = this.statusCode;
  // The request log keeps the error answered (only errors: a success's body is not kept).
  if (status >= 400) this.locals.errorBody = body;
  if (status === 204 || status === 304) {
    this.removeHeader('Content-Type');
    this.removeHeader('Content-Length');
    this.removeHeader('Transfer-Encoding');
    this.end();
    return this;
  }
  if (!this.hasHeader('Content-Type')) this.setHeader('Content-Type', JSON_CONTENT_TYPE);
  if (status === 205) {
    this.setHeader('Content-Length', '0');
    this.removeHeader('Transfer-Encoding');
    this.end();
    return this;
  }
  // `undefined` (and functions) have no JSON text: an empty body, as Express sends.
  const text = (JSON.stringify(body) as string | undefined) ?? '';
  this.setHeader('Content-Length', Buffer.byteLength(text));
  if (this.req.method === 'HEAD') this.end();
  else this.end(text);
  return this;
}
