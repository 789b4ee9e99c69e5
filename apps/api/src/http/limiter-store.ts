import type { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { serviceUnavailable } from '../core/errors';

/**
 * How long a Redis call of a limiter may take before the request is refused with a 503. A Redis
 * that accepts connections but does not answer would otherwise hold every request indefinitely.
 */
export const STORE_TIMEOUT_MS = 1000;

export interface CounterOptions {
  /** Counts in Redis, shared by every instance; in this process without it. */
  redis?: Redis | undefined;
  keyPrefix: string;
  points: number;
  durationSeconds: number;
}

/** A fixed-window counter with the same semantics in either store. */
export function createCounter(options: CounterOptions): RateLimiterAbstract {
  return options.redis
    ? new RateLimiterRedis({
        storeClient: options.redis,
        keyPrefix: options.keyPrefix,
        points: options.points,
        duration: options.durationSeconds,
        rejectIfRedisNotReady: true,
      })
    : new RateLimiterMemory({
        keyPrefix: options.keyPrefix,
        points: options.points,
        duration: options.durationSeconds,
      });
}

/** Settles as `operation` does, or rejects with a 503 once `ms` pass without an answer. */
export async function bounded<T>(operation: Promise<T>, ms: number | undefined): Promise<T> {
  if (ms === undefined) return operation;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(serviceUnavailable()), ms);
  });
  try {
    return await Promise.race([operation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
