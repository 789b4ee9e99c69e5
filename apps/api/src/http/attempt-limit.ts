import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError, serviceUnavailable } from './errors';

/** Counts attempts per key (e.g. sign-ins per address and email) and refuses past a limit. */
export interface AttemptLimiter {
  /** Counts one attempt; throws a 429 `AppError` past the limit. */
  consume(key: string): Promise<void>;
}

export function createAttemptLimiter(options: {
  points: number;
  durationSeconds: number;
  keyPrefix: string;
  redis?: Redis;
  message: string;
}): AttemptLimiter {
  const limiter = options.redis
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
  return {
    async consume(key) {
      try {
        await limiter.consume(key);
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw serviceUnavailable();
        const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
        throw new AppError(
          429,
          'too_many_attempts',
          `${options.message} Try again in ${seconds} s.`,
          {
            'Retry-After': String(seconds),
          },
        );
      }
    },
  };
}
