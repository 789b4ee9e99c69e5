import type { RateLimitClass } from '@boxoffice/contract';
import type { Redis } from 'ioredis';
import { AppError, serviceUnavailable } from '../core/errors';
import {
  bounded,
  createCounter,
  RateLimiterRes,
  STORE_TIMEOUT_MS,
  type RateLimiterAbstract,
} from './limiter-store';

const WINDOW_SECONDS = 60;

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Whole seconds until the current window ends (at least 1 while a window is open). */
  resetSeconds: number;
}

export interface RateLimits {
  /** Counts one request; throws a 429 `AppError` past the limit, a 503 if the store is unreachable. */
  consume(apiKeyId: string, kind: RateLimitClass): Promise<RateLimitState>;
  /** The current window without counting (for responses refused before the limit is checked). */
  peek(apiKeyId: string, kind: RateLimitClass): Promise<RateLimitState>;
  /** Whether the store answers (readiness). */
  ping(): Promise<boolean>;
  readonly store: 'memory' | 'redis';
}

export interface RateLimitOptions {
  readsPerMinute: number;
  writesPerMinute: number;
  redis?: Redis;
  /** Separates counters of different deployments or test runs sharing one Redis. */
  keyPrefix?: string;
  /** How long a Redis operation may take before the request is refused with a 503. */
  storeTimeoutMs?: number;
}

export function createRateLimits(options: RateLimitOptions): RateLimits {
  const limits: Record<RateLimitClass, number> = {
    read: options.readsPerMinute,
    write: options.writesPerMinute,
  };
  const prefix = options.keyPrefix ?? 'bxo:rl';
  const timeoutMs = options.redis ? (options.storeTimeoutMs ?? STORE_TIMEOUT_MS) : undefined;
  const make = (kind: RateLimitClass): RateLimiterAbstract =>
    createCounter({
      redis: options.redis,
      keyPrefix: `${prefix}:${kind}`,
      points: limits[kind],
      durationSeconds: WINDOW_SECONDS,
    });
  const limiters: Record<RateLimitClass, RateLimiterAbstract> = {
    read: make('read'),
    write: make('write'),
  };

  const stateOf = (kind: RateLimitClass, res: RateLimiterRes | null): RateLimitState => ({
    limit: limits[kind],
    remaining: res ? Math.max(0, limits[kind] - res.consumedPoints) : limits[kind],
    resetSeconds: res ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : WINDOW_SECONDS,
  });

  return {
    store: options.redis ? 'redis' : 'memory',
    async consume(apiKeyId, kind) {
      try {
        return stateOf(kind, await bounded(limiters[kind].consume(apiKeyId, 1), timeoutMs));
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw serviceUnavailable();
        const state = stateOf(kind, error);
        const noun = kind === 'read' ? 'read' : 'write';
        throw new AppError(
          429,
          'rate_limited',
          `Rate limit exceeded: ${state.limit} ${noun} requests per minute. Retry after ${state.resetSeconds} s.`,
          { ...rateLimitHeaders(state), 'Retry-After': String(state.resetSeconds) },
        );
      }
    },
    async peek(apiKeyId, kind) {
      try {
        return stateOf(kind, await bounded(limiters[kind].get(apiKeyId), timeoutMs));
      } catch {
        throw serviceUnavailable();
      }
    },
    async ping() {
      if (!options.redis) return true;
      try {
        // Redis answers PING with PONG, or with an error.
        await bounded(options.redis.ping(), timeoutMs);
        return true;
      } catch {
        return false;
      }
    },
  };
}

export const rateLimitHeaders = (state: RateLimitState): Record<string, string> => ({
  'X-RateLimit-Limit': String(state.limit),
  'X-RateLimit-Remaining': String(state.remaining),
  'X-RateLimit-Reset': String(state.resetSeconds),
});
