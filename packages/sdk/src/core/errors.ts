import { parseRetryAfter } from './retry';
import type { Export } from '../resources/types';

/** The root of every error the SDK throws. */
export class BoxofficeError extends Error {
  /** The error's class (`NotFoundError`, `RateLimitError`, …), as logs and stack traces show it. */
  override name = 'BoxofficeError';
}

/** The JSON error body of the API: `error` is always there; `code` names the kind. */
interface ErrorBody {
  error?: unknown;
  code?: unknown;
  request_id?: unknown;
}

/**
 * A request that failed: the server answered with an error status, or (for the connection
 * subclasses) never answered. `status`, `headers` and `body` are those of the response.
 */
export class APIError extends BoxofficeError {
  override name = 'APIError';
  /** The HTTP status; undefined when no response arrived. */
  readonly status: number | undefined;
  /** The response's headers; undefined when no response arrived. */
  readonly headers: Headers | undefined;
  /** The parsed response body, as sent. */
  readonly body: unknown;
  /** The server's message, from `body.error`. */
  readonly error: string | undefined;
  /** The server's machine-readable kind, from `body.code` (e.g. `already_checked_in`). */
  readonly code: string | undefined;
  /** `X-Request-Id` of the response: quote it when reporting a problem. */
  readonly requestId: string | undefined;

  /**
   * An error of a response: its `status`, parsed `body` and `headers`; `message` is used when the
   * body has no `error`. The client makes these; a test can too (`APIError.generate` picks the
   * subclass of a status).
   *
   * @example
   * ```ts
   * const err = new NotFoundError(
   *   404,
   *   { error: 'event not found', code: 'not_found' },
   *   undefined,
   *   new Headers({ 'x-request-id': 'req_…' }),
   * );
   * ```
   */
  constructor(
    status: number | undefined,
    body: unknown,
    message: string | undefined,
    headers: Headers | undefined,
  ) {
    const parsed = (body && typeof body === 'object' ? body : {}) as ErrorBody;
    const error = typeof parsed.error === 'string' ? parsed.error : undefined;
    super(APIError.describe(status, error, message));
    this.status = status;
    this.headers = headers;
    this.body = body;
    this.error = error;
    this.code = typeof parsed.code === 'string' ? parsed.code : undefined;
    this.requestId =
      headers?.get('x-request-id') ??
      (typeof parsed.request_id === 'string' ? parsed.request_id : undefined);
  }

  private static describe(
    status: number | undefined,
    error: string | undefined,
    message: string | undefined,
  ): string {
    const text = error ?? message;
    if (status && text) return `${status} ${text}`;
    if (status) return `${status} status code (no error message in the body)`;
    return text ?? 'Request failed without a response';
  }

  /**
   * The error the client throws for an error response: the subclass of its status
   * (`ConflictError` for a 409, …), or `APIError` for a status without one.
   *
   * @example
   * ```ts
   * const body = { error: 'ticket already checked in', code: 'already_checked_in' };
   * const err = APIError.generate(409, body, new Headers());
   * console.log(err instanceof ConflictError, err.code); // true 'already_checked_in'
   * ```
   */
  static generate(status: number, body: unknown, headers: Headers): APIError {
    const ErrorClass = ERRORS_BY_STATUS[status] ?? (status >= 500 ? InternalServerError : APIError);
    return new ErrorClass(status, body, undefined, headers);
  }
}

/** 400: the request was malformed or a value was invalid; `error` names the field. */
export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
/**
 * 401: the API key is missing (`missing_api_key`), malformed (`malformed_authorization`), unknown
 * (`invalid_api_key`) or revoked (`revoked_api_key`); `error` says what to fix.
 */
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}
/** 402: the organisation is on the free plan; API access needs Pro. */
export class PlanRequiredError extends APIError {
  override name = 'PlanRequiredError';
}
/** Why a 403 was answered; another code a newer server sends is a string too. */
export type PermissionDeniedCode = 'missing_scope' | 'test_mode_only' | (string & {});

/**
 * 403: the API key lacks the scope the endpoint needs (`missing_scope`), or a live key called a
 * test helper, which needs a test key (`test_mode_only`).
 */
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
  /** `missing_scope`, or `test_mode_only` (a test helper called with a live key). */
  declare readonly code: PermissionDeniedCode | undefined;
}
/** 404: no such object in this organisation. */
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}
/** 409: conflicts with the current state (already checked in, void ticket, illegal transition…). */
export class ConflictError extends APIError {
  override name = 'ConflictError';
}
/** 422: well-formed, but refers to something that makes it impossible. */
export class UnprocessableEntityError extends APIError {
  override name = 'UnprocessableEntityError';
}
/** `Retry-After` in whole seconds (rounded up), if the headers have one. */
function secondsToWait(headers: Headers | undefined): number | undefined {
  const wait = headers ? parseRetryAfter(headers.get('retry-after'), Date.now()) : undefined;
  return wait === undefined ? undefined : Math.ceil(wait / 1000);
}
/** 429: the key's rate limit for this class of request is used up. */
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
  /**
   * Seconds the server asked to wait (`Retry-After`), when it said: read from the `headers`
   * `APIError`'s constructor was given.
   *
   * @example
   * ```ts
   * const body = { error: 'Rate limit exceeded', code: 'rate_limited' };
   * const err = new RateLimitError(429, body, undefined, new Headers({ 'retry-after': '30' }));
   * console.log(err.retryAfter); // 30
   * ```
   */
  readonly retryAfter: number | undefined = secondsToWait(this.headers);
}

/** 5xx: the server failed, or (503) its database or rate-limit store is unreachable. */
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}

/** The subclass of each status that has one (`APIError.generate`). */
const ERRORS_BY_STATUS: Readonly<Partial<Record<number, typeof APIError>>> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PlanRequiredError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** The cause of a failed `fetch`, as specific as it says: `connect ECONNREFUSED 127.0.0.1:3000`. */
function describeCause(cause: unknown): string | undefined {
  let deepest: unknown = cause;
  // `fetch` wraps the socket's error: `TypeError: fetch failed` with the real one as its cause.
  while (deepest instanceof Error && deepest.cause instanceof Error) deepest = deepest.cause;
  if (!(deepest instanceof Error)) return typeof deepest === 'string' ? deepest : undefined;
  const code = (deepest as { code?: unknown }).code;
  const message = deepest.message || deepest.name;
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/** No response: DNS, refused or reset connection, TLS failure… */
export class APIConnectionError extends APIError {
  override name = 'APIConnectionError';
  /** The URL the request was sent to, when known. */
  readonly url: string | undefined;

  /**
   * `url` is where the request went and `cause` what `fetch` threw: both are named in the message
   * unless `message` is given.
   *
   * @example
   * ```ts
   * const err = new APIConnectionError({
   *   url: 'http://localhost:3000/api/v1/events',
   *   cause: new Error('connect ECONNREFUSED 127.0.0.1:3000'),
   * });
   * ```
   */
  constructor(options: { message?: string; cause?: unknown; url?: string } = {}) {
    const reason = describeCause(options.cause);
    const message =
      options.message ??
      (options.url
        ? `Connection error: could not reach ${options.url}${reason ? ` (${reason})` : ''}.`
        : `Connection error${reason ? `: ${reason}` : ''}.`);
    super(undefined, undefined, message, undefined);
    this.url = options.url;
    if (options.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}
/** No response within the `timeout` of an attempt (after any retries), or the call's `totalTimeout`. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = 'APIConnectionTimeoutError';
  /**
   * `Request timed out.` unless `message` says more; `url` is where the request went.
   *
   * @example
   * ```ts
   * const err = new APIConnectionTimeoutError({ url: 'http://localhost:3000/api/v1/events' });
   * ```
   */
  constructor(options: { message?: string; url?: string } = {}) {
    super({ message: options.message ?? 'Request timed out.', url: options.url });
  }
}
/** The caller's `AbortSignal` fired. */
export class APIUserAbortError extends APIError {
  override name = 'APIUserAbortError';
  /**
   * `Request was aborted.` unless `message` says otherwise.
   *
   * @example
   * ```ts
   * const err = new APIUserAbortError();
   * ```
   */
  constructor(options: { message?: string } = {}) {
    super(undefined, undefined, options.message ?? 'Request was aborted.', undefined);
  }
}
/**
 * A success status whose body is not what the API sends: not JSON, or JSON of another shape. Most
 * often `baseURL` points at something other than the API (a web page, a proxy's login form).
 */
export class UnexpectedResponseError extends APIError {
  override name = 'UnexpectedResponseError';
  /** The URL the request was sent to. */
  readonly url: string;
  /** The `Content-Type` of the answer, if it had one. */
  readonly contentType: string | undefined;

  /**
   * The answer's `status`, `headers` and parsed `body`, the `url` asked, and the `problem` with the
   * body (`not JSON`, `empty`, …), which the message names.
   *
   * @example
   * ```ts
   * const err = new UnexpectedResponseError({
   *   status: 200,
   *   headers: new Headers({ 'content-type': 'text/html' }),
   *   body: '<!doctype html>…',
   *   url: 'https://boxoffice.example.com/events',
   *   problem: 'not JSON',
   * });
   * ```
   */
  constructor(options: {
    status: number;
    headers: Headers;
    body: unknown;
    url: string;
    problem: string;
  }) {
    const contentType = options.headers.get('content-type') ?? undefined;
    super(
      undefined,
      options.body,
      `${options.status} from ${options.url} with ${contentType ? `Content-Type ${contentType}` : 'no Content-Type'} is ${options.problem}, not an answer of the Boxoffice API: does baseURL point at the API (…/api/v1)?`,
      options.headers,
    );
    (this as { status: number | undefined }).status = options.status;
    this.url = options.url;
    this.contentType = contentType;
  }
}

/** Why an export gives no file: the export as last read, and its id. */
export class ExportError extends BoxofficeError {
  override name = 'ExportError';
  /** The export's id, `exp_…`. */
  readonly exportId: string;
  /** The export as the client last read it, when it did. */
  readonly export: Export | undefined;

  /**
   * `exportId` names the export in the message; `export` is the object as last read.
   *
   * @example
   * ```ts
   * const err = new ExportError('exp_…', 'The export exp_… is still running.');
   * ```
   */
  constructor(exportId: string, message: string, exported?: Export, options?: { cause?: unknown }) {
    super(message, options);
    this.exportId = exportId;
    this.export = exported;
  }
}

/** The export failed on the server: `failureReason` says why. Create a new one to try again. */
export class ExportFailedError extends ExportError {
  override name = 'ExportFailedError';
  /** The server's `failure_reason`. */
  readonly failureReason: string | null;

  constructor(exported: Export) {
    super(
      exported.id,
      `The export ${exported.id} failed: ${exported.failure_reason ?? 'no reason given'}.`,
      exported,
    );
    this.failureReason = exported.failure_reason;
  }
}

/** The export's file was removed after its retention (24 hours): create a new export. */
export class ExportExpiredError extends ExportError {
  override name = 'ExportExpiredError';

  constructor(exportId: string, exported?: Export, options?: { cause?: unknown }) {
    super(
      exportId,
      `The export ${exportId}'s file was removed after its retention: create a new export.`,
      exported,
      options,
    );
  }
}

/** `waitUntilReady` gave up after its `timeoutMs`; the export goes on, and can be waited for again. */
export class ExportTimeoutError extends ExportError {
  override name = 'ExportTimeoutError';
}

/** `rows()` reads NDJSON exports only: a CSV export's file is for `download()`. */
export class ExportFormatError extends ExportError {
  override name = 'ExportFormatError';
}
