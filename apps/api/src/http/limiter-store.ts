import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type * as Flexible from 'rate-limiter-flexible';
import { serviceUnavailable } from '../core/errors';

export type { RateLimiterAbstract } from 'rate-limiter-flexible';

// The three classes used, each from its own file: the package's entry loads every store it
// supports (Mongo, MySQL, DynamoDB, Prisma, …), about 20 ms of start-up for nothing.
const require = createRequire(import.meta.url);
const RateLimiterMemory =
  require('rate-limiter-flexible/lib/RateLimiterMemory.js') as typeof Flexible.RateLimiterMemory;
const RateLimiterRedis =
  require('rate-limiter-flexible/lib/RateLimiterRedis.js') as typeof Flexible.RateLimiterRedis;
export const RateLimiterRes =
  require('rate-limiter-flexible/lib/RateLimiterRes.js') as typeof Flexible.RateLimiterRes;
export type RateLimiterRes = Flexible.RateLimiterRes;

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
export function createCounter(options: CounterOptions): Flexible.RateLimiterAbstract {
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
