import type { Redis } from 'ioredis';
import { AppError, serviceUnavailable } from '../core/errors';
import { bounded, createCounter, RateLimiterRes, STORE_TIMEOUT_MS } from './limiter-store';

/** Counts attempts per key (an address, or an address and an email) and refuses past a limit. */
export interface AttemptLimiter {
  /** Counts one attempt; throws the limit's 429 past it (a 503 if the store does not answer). */
  consume(key: string): Promise<void>;
  /** Gives one counted attempt back. */
  refund(key: string): Promise<void>;
  /** Forgets the key's attempts. */
  reset(key: string): Promise<void>;
}

export interface AttemptLimit {
  points: number;
  durationSeconds: number;
}

export interface AttemptLimiterOptions extends AttemptLimit {
  keyPrefix: string;
  redis?: Redis | undefined;
  /** How long a Redis call may take before the request gets a 503. */
  storeTimeoutMs?: number;
  code: string;
  /** The refusal's message, given the whole seconds until the window ends. */
  message: (retryAfterSeconds: number) => string;
}

export function createAttemptLimiter(options: AttemptLimiterOptions): AttemptLimiter {
  const counter = createCounter({
    redis: options.redis,
    keyPrefix: options.keyPrefix,
    points: options.points,
    durationSeconds: options.durationSeconds,
  });
  const timeoutMs = options.redis ? (options.storeTimeoutMs ?? STORE_TIMEOUT_MS) : undefined;
  const refusal = (res: RateLimiterRes) => {
    const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return new AppError(429, options.code, options.message(seconds), {
      'Retry-After': String(seconds),
    });
  };
  /** Runs a store call within the bound; anything but the limiter's verdict is a 503. */
  const call = async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await bounded(operation(), timeoutMs);
    } catch (error) {
      if (error instanceof RateLimiterRes) throw error;
      throw serviceUnavailable();
    }
  };
  return {
    async consume(key) {
      try {
        await call(() => counter.consume(key));
      } catch (error) {
        throw error instanceof RateLimiterRes ? refusal(error) : error;
      }
    },
    async refund(key) {
      await call(() => counter.reward(key, 1));
    },
    async reset(key) {
      await call(() => counter.delete(key));
    },
  };
}

/**
 * Counts one attempt on each limiter before the work it guards, so that parallel attempts cannot
 * slip past a limit while the first ones are still running. If any limiter refuses, the others get
 * their attempt back (it never ran) and the refusal is thrown. `release` gives every attempt back,
 * for work that ended without deciding anything (e.g. the database was unreachable).
 */
export async function reserveAttempts(
  entries: readonly (readonly [AttemptLimiter, string])[],
): Promise<{ release(): Promise<void> }> {
  const results = await Promise.allSettled(entries.map(([limiter, key]) => limiter.consume(key)));
  const refused = results.find((result) => result.status === 'rejected');
  if (refused) {
    await Promise.all(
      entries
        .filter((_entry, i) => results[i]?.status === 'fulfilled')
        .map(([limiter, key]) => limiter.refund(key).catch(() => undefined)),
    );
    throw refused.reason;
  }
  return {
    release: async () => {
      await Promise.all(entries.map(([limiter, key]) => limiter.refund(key)));
    },
  };
}

/** `42 seconds`, `15 minutes`: a wait in words, rounded up to whole minutes past two. */
export function inWords(seconds: number): string {
  if (seconds < 120) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/** `a minute`, `15 minutes`, `an hour`: a limit's window in words. */
function windowInWords(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'an hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'a minute' : `${seconds / 60} minutes`;
  return inWords(seconds);
}

/**
 * The limits against abuse of the cheap endpoints, each counted per client address, or per
 * endpoint and organisation for test events.
 */
export interface AttemptLimits {
  /** Sign-ups (each one that reaches the server's checks). */
  signups: AttemptLimiter;
  /** Failed sign-ins per address and email: guessing one account's password. */
  signInsByAccount: AttemptLimiter;
  /** Failed sign-ins per address, whatever the email: trying one password on many accounts. */
  signInsByAddress: AttemptLimiter;
  /** Requests to `/api/v1` answered 401; past the limit, requests without a valid key get 429. */
  apiAuthFailures: AttemptLimiter;
  /**
   * Webhook test events per endpoint (key: organisation and endpoint), and per organisation: each
   * is a signed POST to a URL of the organisation's choosing.
   */
  testEventsByEndpoint: AttemptLimiter;
  testEventsByOrganisation: AttemptLimiter;
}

export const ATTEMPT_LIMITS: Readonly<Record<keyof AttemptLimits, AttemptLimit>> = {
  signups: { points: 5, durationSeconds: 60 * 60 },
  signInsByAccount: { points: 10, durationSeconds: 15 * 60 },
  signInsByAddress: { points: 50, durationSeconds: 15 * 60 },
  apiAuthFailures: { points: 30, durationSeconds: 60 },
  testEventsByEndpoint: { points: 5, durationSeconds: 60 },
  testEventsByOrganisation: { points: 20, durationSeconds: 60 * 60 },
};

export interface AttemptLimitsOptions {
  /** Counts in Redis, shared by every instance; in this process without it. */
  redis?: Redis | undefined;
  /** Separates counters of different deployments or test runs sharing one Redis. */
  keyPrefix?: string;
  storeTimeoutMs?: number;
  /** Other numbers than `ATTEMPT_LIMITS` (tests). */
  limits?: Partial<Record<keyof AttemptLimits, AttemptLimit>>;
}

export function createAttemptLimits(options: AttemptLimitsOptions = {}): AttemptLimits {
  const prefix = options.keyPrefix ?? 'bxo';
  const limit = (name: keyof AttemptLimits) => ({
    ...(options.limits?.[name] ?? ATTEMPT_LIMITS[name]),
    redis: options.redis,
    storeTimeoutMs: options.storeTimeoutMs,
  });
  const signups = limit('signups');
  const apiAuthFailures = limit('apiAuthFailures');
  const testEventsByEndpoint = limit('testEventsByEndpoint');
  const testEventsByOrganisation = limit('testEventsByOrganisation');
  return {
    signups: createAttemptLimiter({
      ...signups,
      keyPrefix: `${prefix}:signup`,
      code: 'too_many_signups',
      message: (seconds) =>
        `Too many sign-ups from this address (at most ${signups.points} in ${windowInWords(signups.durationSeconds)}). Try again in ${inWords(seconds)}.`,
    }),
    signInsByAccount: createAttemptLimiter({
      ...limit('signInsByAccount'),
      keyPrefix: `${prefix}:login`,
      code: 'too_many_attempts',
      message: (seconds) =>
        `Too many failed sign-ins to this account from this address. Try again in ${inWords(seconds)}.`,
    }),
    signInsByAddress: createAttemptLimiter({
      ...limit('signInsByAddress'),
      keyPrefix: `${prefix}:login-address`,
      code: 'too_many_attempts',
      message: (seconds) =>
        `Too many failed sign-ins from this address. Try again in ${inWords(seconds)}.`,
    }),
    apiAuthFailures: createAttemptLimiter({
      ...apiAuthFailures,
      keyPrefix: `${prefix}:auth-failure`,
      code: 'too_many_failed_authentications',
      message: (seconds) =>
        `Too many requests with a missing or invalid API key from this address (at most ${apiAuthFailures.points} in ${windowInWords(apiAuthFailures.durationSeconds)}). Retry after ${seconds} s.`,
    }),
    testEventsByEndpoint: createAttemptLimiter({
      ...testEventsByEndpoint,
      keyPrefix: `${prefix}:test-event`,
      code: 'too_many_test_events',
      message: (seconds) =>
        `Too many test events for this endpoint (at most ${testEventsByEndpoint.points} in ${windowInWords(testEventsByEndpoint.durationSeconds)}). Try again in ${inWords(seconds)}.`,
    }),
    testEventsByOrganisation: createAttemptLimiter({
      ...testEventsByOrganisation,
      keyPrefix: `${prefix}:test-event-org`,
      code: 'too_many_test_events',
      message: (seconds) =>
        `Too many test events for this organisation (at most ${testEventsByOrganisation.points} in ${windowInWords(testEventsByOrganisation.durationSeconds)}). Try again in ${inWords(seconds)}.`,
    }),
  };
}
