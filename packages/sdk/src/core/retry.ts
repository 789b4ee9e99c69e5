/** How failed attempts are retried. Every field has a default; see `DEFAULT_RETRY`. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** The first backoff delay; it doubles with each retry. */
  initialDelayMs: number;
  /** The longest backoff delay. */
  maxDelayMs: number;
  /**
   * The longest `Retry-After` the client waits for. A 429 asking for more is thrown as a
   * `RateLimitError` at once rather than held: the caller decides whether to wait that long.
   */
  maxRetryAfterMs: number;
}

/** The defaults, frozen: a client's own policy comes from its options, never from changing these. */
export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
});

/**
 * Exponential backoff with jitter for the `retry`-th retry (0-based): 0.5 s, 1 s, 2 s … up to
 * `maxDelayMs`, each reduced by up to 25 % at random so that clients that failed together do not
 * retry together.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const base = Math.min(policy.initialDelayMs * 2 ** retry, policy.maxDelayMs);
  return base * (1 - 0.25 * random());
}

/**
 * Whether a response status is worth another attempt. 408, 429 and 5xx are; 409 only when the
 * server says an idempotent request with the same key is still running (`idempotency_in_flight`),
 * never for a real conflict such as a ticket already checked in. 400, 401, 402, 403, 404 and 422
 * would fail the same way again.
 */
export function isRetryableStatus(status: number, code: string | undefined): boolean {
  if (status === 408 || status === 429 || status >= 500) return true;
  return status === 409 && code === 'idempotency_in_flight';
}

/**
 * `Retry-After` in milliseconds from `now`: either delay-seconds (`17`) or an HTTP-date. Undefined
 * when absent or unreadable; never negative.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.max(0, Number(text) * 1000);
  // An HTTP-date names its day and month; without letters, V8's lenient parser would read `-5`
  // as a year.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * How long the server asked to wait, in milliseconds: `retry-after-ms` (milliseconds, as some
 * gateways send) before `Retry-After`. Undefined when it said nothing readable.
 */
export function retryDelayFrom(headers: Headers, now: number): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  return parseRetryAfter(headers.get('retry-after'), now);
}
