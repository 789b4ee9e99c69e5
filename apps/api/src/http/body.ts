import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { AppError } from '../core/errors';

/** No valid body nests deeper; deeper ones are refused before anything walks them recursively. */
export const MAX_BODY_DEPTH = 32;

/** Whether `value` nests arrays and objects more than `max` levels deep (checked without recursion). */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [current, depth] = next;
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Parses JSON bodies of POST/PATCH after the access checks, so an unauthenticated caller is
 * refused before its body is read. Any other content type is a 400 naming the expected one.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({
    limit: limitBytes,
    strict: true,
    type: () => true,
    // The decoder would turn invalid bytes into U+FFFD, and drop a leading byte order mark, so the
    // text parsed would differ from what was sent without anyone noticing. JSON text carries no
    // byte order mark (RFC 8259, section 8.1): one is refused as JSON that does not parse.
    verify: (_req, _res, raw) => {
      if (!isUtf8(raw)) {
        throw new AppError(400, 'invalid_encoding', 'request body is not valid UTF-8');
      }
      if (raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) {
        throw new AppError(400, 'malformed_json', 'request body is not valid JSON');
      }
    },
  });
  const tooDeep = () =>
    new AppError(
      400,
      'body_too_deep',
      `request body nests arrays or objects more than ${MAX_BODY_DEPTH} levels deep`,
    );
  // One middleware for the three steps (the type, the parsing, the depth), in the order they run.
  return (req, res, next) => {
    const method = req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    if (method === 'POST' || method === 'PATCH' || method === 'PUT') {
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
      const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type)?.[1];
      if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
        throw new AppError(400, 'unsupported_encoding', 'request body must be UTF-8 encoded JSON');
      }
    }
    parse(req, res, (error?: unknown) => {
      if (error) next(error);
      else if (nestsDeeperThan(req.body, MAX_BODY_DEPTH)) next(tooDeep());
      else next();
    });
  };
}
