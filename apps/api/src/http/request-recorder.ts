import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { API_BASE_PATH } from '@boxoffice/contract';
import type { RequestLogRow } from '../modules/request-logs/request-log.repository';
import { storedJson, storedText } from '../modules/request-logs/redact';
import type { RequestCaller } from './locals';
import { newRequestId } from './request-id';
import { UNMATCHED_ROUTE, type RoutePatterns } from './routes';

export interface RequestRecorderOptions {
  /** Names the route of each request (its template). */
  routes: RoutePatterns;
  /** Takes each record (the writer's buffer); must neither wait nor throw. */
  record: (row: RequestLogRow) => void;
  /**
   * The caller of a request no route matched (so no access check ran), from its Authorization
   * header: looked up after the answer, so that a typo in a path still shows in the log.
   */
  callerOf?: (authorization: string) => Promise<RequestCaller | undefined>;
  /**
   * The most `callerOf` lookups a second (default 20): anyone can send requests to paths no route
   * has, and each lookup may be a database read that no rate limit counts. Past it, such requests
   * are only counted, as if their key were unknown.
   */
  callerLookupsPerSecond?: number;
  /** Hears of each request recorded in no organisation's log (it failed authentication). */
  onUnattributed?: () => void;
}

/** The longest path (with its query) and User-Agent kept, in characters. */
const MAX_PATH = 2048;
const MAX_USER_AGENT = 512;

/** The error codes that mean the request's body was not JSON the log can keep, and why. */
const BODY_OMISSION: Record<string, string> = {
  malformed_json: 'not_json',
  unsupported_content_type: 'not_json',
  invalid_encoding: 'invalid_utf8',
  unsupported_encoding: 'invalid_utf8',
  body_too_large: 'too_large',
  body_too_deep: 'too_deep',
};

/** The SDK's `User-Agent` begins `boxoffice-sdk/<version> ` (packages/sdk/src/client.ts). */
const SDK_AGENT = /^(boxoffice-sdk)\/([0-9A-Za-z.+-]{1,40})(?:\s|$)/;

const withoutBase = (path: string): string =>
  path.startsWith(API_BASE_PATH) ? path.slice(API_BASE_PATH.length) || '/' : path;

/** The request's body as the log keeps it for a failed request, or why not. */
function requestBody(
  req: Request,
  errorCode: string | null,
): Pick<RequestLogRow, 'request_body' | 'request_body_truncated' | 'request_body_omitted'> {
  const none = { request_body: null, request_body_truncated: false, request_body_omitted: null };
  const hadBody =
    Number(req.headers['content-length'] ?? 0) > 0 ||
    req.headers['transfer-encoding'] !== undefined;
  if (!hadBody) return none;
  const omitted = errorCode === null ? undefined : BODY_OMISSION[errorCode];
  if (omitted) return { ...none, request_body_omitted: omitted };
  // Parsed only once the access checks passed: a refusal before that never read it.
  const stored = req.body === undefined ? undefined : storedJson(req.body);
  if (!stored) return { ...none, request_body_omitted: 'not_read' };
  return { ...none, request_body: stored.text, request_body_truncated: stored.truncated };
}

const NO_CALLER: RequestCaller = { apiKeyId: '', keyHint: '', organisationId: '', livemode: true };

const callerColumns = (caller: RequestCaller) => ({
  organisation_id: caller.organisationId,
  livemode: caller.livemode,
  api_key_id: caller.apiKeyId,
  key_hint: caller.keyHint,
});

/** The record of an answered request of `caller`'s. */
function recordOf(
  req: Request,
  res: Response,
  caller: RequestCaller,
  routes: RoutePatterns,
): RequestLogRow {
  const { locals } = res;
  const durationMs = performance.now() - locals.startedAt;
  // A response the client abandoned is recorded as such: nginx's 499, as the metrics name it.
  const status = res.writableFinished ? res.statusCode : 499;
  const errorBody = status >= 400 ? locals.errorBody : undefined;
  const code = (errorBody as { code?: unknown } | undefined)?.code;
  const errorCode = typeof code === 'string' ? code.slice(0, 100) : null;
  const route = routes.of(req, res);
  const agent = req.headers['user-agent'];
  const sdk = agent === undefined ? null : SDK_AGENT.exec(agent);
  const idempotencyKey = req.headers['idempotency-key'];
  const length = Number(res.getHeader('content-length'));
  const error = errorBody === undefined ? undefined : storedJson(errorBody);
  return {
    // The request id, unless the caller chose it (two requests may carry the same one): then one
    // of the server's own, which no other record has.
    id: req.headers['x-request-id'] === locals.requestId ? newRequestId() : locals.requestId,
    created_at: new Date(performance.timeOrigin + locals.startedAt),
    ...callerColumns(caller),
    method: req.method,
    route: route === UNMATCHED_ROUTE ? route : withoutBase(route),
    path: storedText(withoutBase(req.originalUrl), MAX_PATH),
    status,
    error_code: errorCode,
    duration_ms: Math.round(durationMs * 100) / 100,
    request_id: locals.requestId,
    idempotency_key: typeof idempotencyKey === 'string' ? storedText(idempotencyKey, 255) : null,
    idempotent_replayed: res.getHeader('idempotent-replayed') === 'true',
    client_address: req.ip ?? null,
    user_agent: agent === undefined ? null : storedText(agent, MAX_USER_AGENT),
    sdk_name: sdk?.[1] ?? null,
    sdk_version: sdk?.[2] ?? null,
    response_bytes: Number.isFinite(length) ? length : null,
    ...(status >= 400
      ? requestBody(req, errorCode)
      : { request_body: null, request_body_truncated: false, request_body_omitted: null }),
    error_body: error?.text ?? null,
    error_body_truncated: error?.truncated ?? false,
  };
}

/**
 * Records every `/api/v1` request in its organisation's request log once its answer is done (or
 * abandoned): the record goes to `record` (a buffer in memory), never to the database on the
 * request's path. A request without an organisation (one that failed authentication) is only
 * counted. The listener is shared by every request (no closure per request).
 */
export function requestRecorder(options: RequestRecorderOptions): RequestHandler {
  const { routes, record, callerOf } = options;
  const unattributed = options.onUnattributed ?? (() => undefined);
  const lookupsPerSecond = options.callerLookupsPerSecond ?? 20;
  let lookupWindow = 0;
  let lookups = 0;
  /** Whether one more lookup fits in this second's allowance (and counts it). */
  const mayLookUp = (): boolean => {
    const window = Math.floor(performance.now() / 1000);
    if (window !== lookupWindow) {
      lookupWindow = window;
      lookups = 0;
    }
    return lookups++ < lookupsPerSecond;
  };

  function onClose(this: ServerResponse): void {
    const res = this as Response;
    const req = res.req as Request;
    try {
      const caller = res.locals.caller;
      if (caller) {
        record(recordOf(req, res, caller, routes));
        return;
      }
      const authorization = req.headers.authorization;
      if (!callerOf || !authorization || routes.of(req, res) !== UNMATCHED_ROUTE || !mayLookUp()) {
        unattributed();
        return;
      }
      // The record is made now (its duration is the answer's), and kept once the key is known.
      const draft = recordOf(req, res, NO_CALLER, routes);
      callerOf(authorization).then(
        (found) => {
          if (found) record({ ...draft, ...callerColumns(found) });
          else unattributed();
        },
        () => unattributed(),
      );
    } catch {
      // The log never fails a request, nor the process: a record that cannot be made is counted.
      unattributed();
    }
  }

  return (_req, res, next) => {
    res.once('close', onClose);
    next();
  };
}
