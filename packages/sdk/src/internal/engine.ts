import type { AppRoute } from '@ts-rest/core';
import type { WithResponse } from '../core/api-promise';
import { AbortError, type Clock } from '../core/clock';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '../core/errors';
import { RateLimitTracker, type RateLimitClass, type Reservation } from '../core/rate-limit';
import { backoffDelay, isRetryableStatus, parseRetryAfter, type RetryPolicy } from '../core/retry';
import { uuid } from './env';
import type { Logger } from './log';

/** Options every method accepts as its last argument. */
export interface RequestOptions {
  /** Milliseconds one attempt may take; overrides the client's `timeout`. */
  timeout?: number;
  /** Retries after the first attempt; overrides the client's `maxRetries`. */
  maxRetries?: number;
  /** Aborts the request, including any wait between attempts. */
  signal?: AbortSignal;
  /** Extra headers for this request. */
  headers?: Record<string, string>;
  /**
   * The `Idempotency-Key` of a POST. By default each call generates one and reuses it for all its
   * retries; pass your own to make retries across calls (or processes) safe too.
   */
  idempotencyKey?: string;
}

export interface EngineConfig {
  apiKey: string;
  baseURL: string;
  timeout: number;
  retry: RetryPolicy;
  /** Milliseconds a call may take over all its attempts and waits; 0 for no limit. */
  totalTimeout: number;
  throttle: boolean;
  fetch: typeof fetch;
  clock: Clock;
  random: () => number;
  logger: Logger;
  defaultHeaders: Record<string, string>;
}

/** Route input: path parameters, query and body, as the contract names them. */
export interface RouteInput {
  params?: Record<string, string>;
  query?: object;
  body?: unknown;
}

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

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The longest delay a timer takes (about 24.8 days); longer ones would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** Sends contract routes over `fetch`, with timeouts, retries, idempotency and throttling. */
export class Engine {
  readonly rateLimits: RateLimitTracker;

  constructor(readonly config: EngineConfig) {
    this.rateLimits = new RateLimitTracker(config.clock);
  }

  url(route: AppRoute, input: RouteInput): string {
    const path = route.path.replace(/:(\w+)/g, (_, name: string) => {
      const value = input.params?.[name];
      if (value === undefined || value === '') throw new TypeError(`${name} is required`);
      return encodeURIComponent(value);
    });
    return `${this.config.baseURL}${path}${serializeQuery(input.query)}`;
  }

  async send<T>(
    route: AppRoute,
    input: RouteInput,
    options: RequestOptions = {},
  ): Promise<WithResponse<T>> {
    const { clock, retry: policy, logger } = this.config;
    const kind: RateLimitClass = route.method === 'GET' ? 'read' : 'write';
    const url = this.url(route, input);
    const maxRetries = options.maxRetries ?? policy.maxRetries;
    const timeout = options.timeout ?? this.config.timeout;
    const deadline =
      this.config.totalTimeout > 0 ? clock.now() + this.config.totalTimeout : Infinity;
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${this.config.apiKey}`,
    };
    setHeaders(headers, this.config.defaultHeaders);
    if (input.body !== undefined) headers['content-type'] = 'application/json';
    if (route.method === 'POST')
      headers['idempotency-key'] = options.idempotencyKey ?? `sdk_${uuid()}`;
    setHeaders(headers, options.headers);
    const body = input.body === undefined ? undefined : JSON.stringify(input.body);
    const label = `${route.method} ${route.path}`;

    for (let attempt = 0; ; attempt++) {
      if (options.signal?.aborted) throw new APIUserAbortError();
      const reservation = this.config.throttle
        ? await this.waitForWindow(kind, deadline, options.signal)
        : undefined;
      // No attempt outlives the call's deadline; none starts once it has passed.
      const timeLeft = deadline - clock.now();
      if (timeLeft <= 0) {
        if (reservation) this.rateLimits.release(reservation);
        throw new APIConnectionTimeoutError();
      }
      logger.debug(`boxoffice: ${label} (attempt ${attempt + 1})`);

      let failure: APIError;
      let delay: number | undefined;
      try {
        let answer: { response: Response; text: string };
        try {
          answer = await this.attempt(
            url,
            { method: route.method, headers, body },
            Math.min(timeout, timeLeft),
            options.signal,
          );
        } catch (error) {
          // Only requests the server answered count against the window.
          if (reservation) this.rateLimits.release(reservation);
          throw error;
        }
        const { response, text } = answer;
        this.rateLimits.observe(kind, response.headers, reservation);
        if (response.ok) return { data: parseBody(text) as T, response };
        failure = APIError.generate(response.status, parseBody(text), response.headers);
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'), clock.now());
        if (response.status === 429) {
          // Past the cap the caller decides: waiting that long is not the client's call to make.
          if (retryAfter !== undefined && retryAfter > policy.maxRetryAfterMs) throw failure;
          delay = retryAfter ?? backoffDelay(attempt, policy, this.config.random);
          this.rateLimits.pause(kind, delay);
        } else if (isRetryableStatus(response.status, failure.code)) {
          delay = Math.min(
            retryAfter ?? backoffDelay(attempt, policy, this.config.random),
            policy.maxRetryAfterMs,
          );
        }
      } catch (error) {
        if (!(error instanceof APIConnectionError)) throw error;
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

  /**
   * One fetch with its own timeout, the body read as text within it; connection failures become
   * `APIConnectionError`s.
   */
  private async attempt(
    url: string,
    init: RequestInit,
    timeout: number,
    signal: AbortSignal | undefined,
  ): Promise<{ response: Response; text: string }> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeout);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.config.fetch(url, { ...init, signal: controller.signal });
      // Read the body inside the timeout too: a server that stalls mid-body is a timeout.
      return { response, text: await response.text() };
    } catch (error) {
      if (signal?.aborted) throw new APIUserAbortError();
      if (timedOut) throw new APIConnectionTimeoutError();
      throw new APIConnectionError({ cause: error });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
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
