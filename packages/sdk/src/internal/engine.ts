import type { RawAnswer } from '../core/api-promise';
import { AbortError, type Clock } from '../core/clock';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  UnexpectedResponseError,
} from '../core/errors';
import { RateLimitTracker, type RateLimitClass, type Reservation } from '../core/rate-limit';
import { backoffDelay, isRetryableStatus, retryDelayFrom, type RetryPolicy } from '../core/retry';
import { uuid } from './env';
import type { LeveledLogger } from './log';
import { checkRequestOptions } from './options';

/** Where a Boxoffice server serves the API: every `baseURL` ends in it. */
const API_PATH = '/api/v1';

/**
 * What to check when a 404 says the route itself was not found (or is not the API's JSON at all)
 * and `baseURL` lacks `/api/v1`: the usual cause is the server's root given as `baseURL`.
 */
function baseURLHint(baseURL: string, status: number, body: unknown): string | undefined {
  if (status !== 404) return undefined;
  const envelope = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const ours = typeof envelope.error === 'string' && envelope.code !== 'route_not_found';
  if (ours || new URL(baseURL).pathname.replace(/\/+$/, '').endsWith(API_PATH)) return undefined;
  return `The baseURL ${baseURL} does not end in ${API_PATH}, where the Boxoffice API is served: try ${baseURL}${API_PATH}`;
}

/** Options every method accepts as its last argument. */
export interface RequestOptions {
  /** Milliseconds one attempt may take; overrides the client's `timeout`. */
  timeout?: number | undefined;
  /** Retries after the first attempt; overrides the client's `maxRetries`. */
  maxRetries?: number | undefined;
  /** The longest `Retry-After` (ms) this call waits on; overrides the client's `maxRetryAfter`. */
  maxRetryAfter?: number | undefined;
  /** Milliseconds this call may take over all attempts and waits (0: none); overrides the client's. */
  totalTimeout?: number | undefined;
  /** Aborts the request, including any wait between attempts. */
  signal?: AbortSignal | undefined;
  /** Extra headers for this request. */
  headers?: Record<string, string> | undefined;
  /**
   * The `Idempotency-Key` of a POST. By default each call generates one and reuses it for all its
   * retries; pass your own to make retries across calls (or processes) safe too.
   */
  idempotencyKey?: string | undefined;
  /**
   * More `fetch` options for this request (e.g. undici's `dispatcher` for a proxy), over the
   * client's `fetchOptions`. `method`, `headers`, `body` and `signal` are the client's own.
   */
  fetchOptions?: RequestInit | undefined;
}

export interface EngineConfig {
  apiKey: string;
  baseURL: string;
  timeout: number;
  retry: Readonly<RetryPolicy>;
  /** Milliseconds a call may take over all its attempts and waits; 0 for no limit. */
  totalTimeout: number;
  throttle: boolean;
  fetch: typeof fetch;
  fetchOptions: RequestInit;
  clock: Clock;
  random: () => number;
  logger: LeveledLogger;
  defaultHeaders: Record<string, string>;
  userAgent: string;
}

/** A route of the API: its method and its path under the base URL, with `:name` parameters. */
export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
}

/** Route input: path parameters, query and body. */
export interface RouteInput {
  params?: Record<string, string>;
  query?: object | undefined;
  body?: unknown;
}

/** What is wrong with a success body, if anything (`undefined`: it is as expected). */
export type ShapeCheck = (body: unknown) => string | undefined;

/** Numbers and booleans read the same in JSON as in a URL; dates travel as ISO-8601. */
const toParam = (value: unknown): string =>
  value instanceof Date
    ? value.toISOString()
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

function serializeQuery(query: object | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {}) as [string, unknown][]) {
    if (value === undefined || value === null) continue;
    search.set(key, Array.isArray(value) ? value.map(toParam).join(',') : toParam(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Header names are case-insensitive: keep one spelling, so a caller's value replaces ours. */
function setHeaders(target: Record<string, string>, source: Record<string, string> | undefined) {
  for (const [name, value] of Object.entries(source ?? {})) target[name.toLowerCase()] = value;
}

/** The headers as logged: the API key is never written out. */
function redacted(headers: Record<string, string>): Record<string, string> {
  const out = { ...headers };
  if (out.authorization) out.authorization = out.authorization.replace(/(\S{13})\S*$/, '$1…');
  return out;
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A success's body, not yet read: `Engine#open` hands it to the caller. */
export interface OpenBody {
  response: Response;
  /** Gives up on the body: its reads reject (a stalled download, say). */
  abort(): void;
  /** Lets go of the caller's signal once the body is read or given up. */
  done(): void;
}

/** One attempt's answer: its body as text, or (asked to stream, on a success) left unread. */
interface Attempted {
  response: Response;
  text: string;
  body?: OpenBody;
}

/** The longest delay a timer takes (about 24.8 days); longer ones would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** Sends API routes over `fetch`, with timeouts, retries, idempotency and throttling. */
export class Engine {
  readonly rateLimits: RateLimitTracker;

  constructor(
    readonly config: EngineConfig,
    rateLimits?: RateLimitTracker,
  ) {
    this.rateLimits = rateLimits ?? new RateLimitTracker(config.clock);
  }

  url(route: Route, input: RouteInput): string {
    const path = route.path.replace(/:(\w+)/g, (_, name: string) => {
      const value = input.params?.[name];
      if (value === undefined || value === '') throw new TypeError(`${name} is required`);
      return encodeURIComponent(value);
    });
    return `${this.config.baseURL}${path}${serializeQuery(input.query)}`;
  }

  send<T>(
    route: Route,
    input: RouteInput,
    options: RequestOptions = {},
    check?: ShapeCheck,
    onHeaders?: (response: Response) => void,
  ): Promise<RawAnswer<T>> {
    return this.exchange<T>(route, input, options, { check, onHeaders });
  }

  /**
   * A success whose body is left for the caller to read as it arrives (an export's file), sent as
   * `send` sends: throttled, retried until an answer's headers arrive, errors thrown alike. Each
   * attempt's `timeout` ends with the headers; the caller's `signal` still stops the body after.
   */
  async open(route: Route, input: RouteInput, options: RequestOptions = {}): Promise<OpenBody> {
    const { body, response } = await this.exchange<undefined>(route, input, options, {
      stream: true,
    });
    // `exchange` returns a success's unread body whenever it is asked to stream.
    return body ?? { response, abort: () => undefined, done: () => undefined };
  }

  private async exchange<T>(
    route: Route,
    input: RouteInput,
    options: RequestOptions,
    how: {
      check?: ShapeCheck | undefined;
      onHeaders?: ((response: Response) => void) | undefined;
      stream?: boolean;
    },
  ): Promise<RawAnswer<T> & { body?: OpenBody }> {
    const { check, onHeaders } = how;
    checkRequestOptions(options);
    const { clock, retry: policy, logger } = this.config;
    const kind: RateLimitClass = route.method === 'GET' ? 'read' : 'write';
    const url = this.url(route, input);
    const maxRetries = options.maxRetries ?? policy.maxRetries;
    const maxRetryAfter = options.maxRetryAfter ?? policy.maxRetryAfterMs;
    const timeout = options.timeout ?? this.config.timeout;
    const totalTimeout = options.totalTimeout ?? this.config.totalTimeout;
    const deadline = totalTimeout > 0 ? clock.now() + totalTimeout : Infinity;
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${this.config.apiKey}`,
      'user-agent': this.config.userAgent,
    };
    setHeaders(headers, this.config.defaultHeaders);
    if (input.body !== undefined) headers['content-type'] = 'application/json';
    if (route.method === 'POST')
      headers['idempotency-key'] = options.idempotencyKey ?? `sdk_${uuid()}`;
    setHeaders(headers, options.headers);
    const body = input.body === undefined ? undefined : JSON.stringify(input.body);
    const label = `${route.method} ${url}`;
    const fetchOptions = { ...this.config.fetchOptions, ...options.fetchOptions };

    for (let attempt = 0; ; attempt++) {
      if (options.signal?.aborted) throw new APIUserAbortError();
      const reservation = this.config.throttle
        ? await this.waitForWindow(kind, deadline, options.signal)
        : undefined;
      // No attempt outlives the call's deadline; none starts once it has passed.
      const timeLeft = deadline - clock.now();
      if (timeLeft <= 0) {
        if (reservation) this.rateLimits.release(reservation);
        throw new APIConnectionTimeoutError({
          message: `Request timed out: ${label} did not succeed within totalTimeout (${totalTimeout} ms).`,
          url,
        });
      }
      // Lets the server's logs tell a retry from a first attempt.
      headers['x-boxoffice-retry-count'] = String(attempt);
      // Built only when written: a call at the default level spends nothing on its debug lines.
      if (logger.enabled('debug')) {
        logger.debug(`boxoffice: ${label} (attempt ${attempt + 1} of ${maxRetries + 1})`, {
          headers: redacted(headers),
        });
      }
      const started = clock.now();

      let failure: APIError;
      let delay: number | undefined;
      try {
        let answer: Attempted;
        try {
          answer = await this.attempt(
            url,
            { ...fetchOptions, method: route.method, headers, body },
            Math.min(timeout, timeLeft),
            options.signal,
            onHeaders,
            how.stream ?? false,
          );
        } catch (error) {
          // Only requests the server answered count against the window.
          if (reservation) this.rateLimits.release(reservation);
          throw error;
        }
        const { response, text } = answer;
        this.rateLimits.observe(kind, response.headers, reservation);
        if (logger.enabled('debug')) {
          const requestId = response.headers.get('x-request-id');
          logger.debug(
            `boxoffice: ${label} → ${response.status} in ${Math.round(clock.now() - started)} ms (attempt ${attempt + 1}${requestId ? `, request ${requestId}` : ''})`,
          );
        }
        if (answer.body) return { data: undefined as T, response, text, body: answer.body };
        const parsed = parseBody(text);
        if (response.ok) {
          return { data: this.checked<T>(parsed, text, response, url, check), response, text };
        }
        failure = APIError.generate(response.status, parsed, response.headers);
        const hint = baseURLHint(this.config.baseURL, response.status, parsed);
        if (hint) failure.message = `${failure.message}. ${hint}`;
        const retryAfter = retryDelayFrom(response.headers, clock.now());
        const override = response.headers.get('x-should-retry');
        if (override === 'false') {
          delay = undefined;
        } else if (response.status === 429) {
          // Past the cap the caller decides: waiting that long is not the client's call to make.
          if (retryAfter !== undefined && retryAfter > maxRetryAfter) throw failure;
          delay = retryAfter ?? backoffDelay(attempt, policy, this.config.random);
          this.rateLimits.pause(kind, delay);
        } else if (override === 'true' || isRetryableStatus(response.status, failure.code)) {
          delay = Math.min(
            retryAfter ?? backoffDelay(attempt, policy, this.config.random),
            maxRetryAfter,
          );
        }
      } catch (error) {
        if (!(error instanceof APIConnectionError)) throw error;
        logger.debug(
          `boxoffice: ${label} → ${error.name} after ${Math.round(clock.now() - started)} ms (attempt ${attempt + 1})`,
        );
        failure = error;
        delay = backoffDelay(attempt, policy, this.config.random);
      }

      if (delay === undefined || attempt >= maxRetries || clock.now() + delay > deadline)
        throw failure;
      logger.info(
        `boxoffice: ${label} failed (${failure.status ?? failure.name}); retry ${attempt + 1} of ${maxRetries} in ${Math.round(delay)} ms`,
      );
      // After a 429 with throttling on, the shared pause is the wait: `waitForWindow` serves it.
      if (!(failure.status === 429 && this.config.throttle))
        await this.sleep(delay, options.signal);
    }
  }

  /** A success body, or an `UnexpectedResponseError` if it is not the API's JSON of that route. */
  private checked<T>(
    parsed: unknown,
    text: string,
    response: Response,
    url: string,
    check: ShapeCheck | undefined,
  ): T {
    // `parseBody` gives back the text itself when it is not JSON.
    const problem = text === '' ? 'empty' : parsed === text ? 'not JSON' : check?.(parsed);
    if (problem === undefined) return parsed as T;
    throw new UnexpectedResponseError({
      status: response.status,
      headers: response.headers,
      body: text.length > 500 ? `${text.slice(0, 500)}…` : text,
      url,
      problem,
    });
  }

  /**
   * One fetch with its own timeout, the body read as text within it; connection failures become
   * `APIConnectionError`s.
   */
  private async attempt(
    url: string,
    init: RequestInit,
    timeout: number,
    signal: AbortSignal | undefined,
    onHeaders: ((response: Response) => void) | undefined,
    stream: boolean,
  ): Promise<Attempted> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeout);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let streaming = false;
    try {
      const response = await this.config.fetch(url, { ...init, signal: controller.signal });
      // A success's headers, before its body is read (a list walk asks for its next page then).
      if (response.ok) onHeaders?.(response);
      if (stream && response.ok) {
        streaming = true;
        const done = () => signal?.removeEventListener('abort', onAbort);
        return { response, text: '', body: { response, abort: () => controller.abort(), done } };
      }
      // Read the body inside the timeout too: a server that stalls mid-body is a timeout.
      return { response, text: await response.text() };
    } catch (error) {
      if (signal?.aborted) throw new APIUserAbortError();
      // Not aborted by the caller, so by the timer.
      if (controller.signal.aborted) {
        throw new APIConnectionTimeoutError({
          message: `Request timed out: no answer from ${init.method ?? 'GET'} ${url} within ${timeout} ms.`,
          url,
        });
      }
      throw new APIConnectionError({ cause: error, url });
    } finally {
      clearTimeout(timer);
      if (!streaming) signal?.removeEventListener('abort', onAbort);
    }
  }

  private async sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.config.clock.sleep(ms, signal);
    } catch (error) {
      if (error instanceof AbortError || signal?.aborted) throw new APIUserAbortError();
      throw error;
    }
  }

  /**
   * Waits while the tracked window has nothing left, unless that wait would pass the deadline, then
   * takes one request from it. The check and the reservation happen in one step, so concurrent
   * calls cannot all see the same last request left. Any news of the window (an answer, a request
   * given back) wakes the waiting calls to look again.
   */
  private async waitForWindow(
    kind: RateLimitClass,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<Reservation> {
    for (;;) {
      const wait = this.rateLimits.delayBeforeSend(kind);
      const now = this.config.clock.now();
      // Past the deadline the server's own answer (a 429 with Retry-After) is more useful.
      if (wait <= 0 || (wait !== Infinity && now + wait > deadline)) {
        return this.rateLimits.reserve(kind);
      }
      // An unknown wait (for an answer in flight) lasts until news arrives, or the deadline.
      const bound = Math.min(wait, deadline - now, MAX_TIMER_MS);
      if (bound <= 0) return this.rateLimits.reserve(kind);
      this.config.logger.debug(
        wait === Infinity
          ? `boxoffice: holding a ${kind} request until an answer in flight tells the new window`
          : `boxoffice: holding a ${kind} request ${Math.round(wait)} ms for the rate limit`,
      );
      await this.sleepUntilNews(kind, bound, signal);
    }
  }

  /** Sleeps `ms`, or less if the window of `kind` changes first. */
  private async sleepUntilNews(kind: RateLimitClass, ms: number, signal: AbortSignal | undefined) {
    const wake = new AbortController();
    const onAbort = () => wake.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const stop = this.rateLimits.onChange(kind, onAbort);
    try {
      await this.config.clock.sleep(ms, wake.signal);
    } catch (error) {
      if (signal?.aborted) throw new APIUserAbortError();
      if (!(error instanceof AbortError)) throw error;
    } finally {
      stop();
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
