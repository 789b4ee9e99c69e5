import type { Clock } from './clock';

/** Requests count against one of two limits: reads (GET) and writes (POST, PATCH). */
export type RateLimitClass = 'read' | 'write';

/** What the client last learned about one class's window from the server's headers. */
export interface RateLimitSnapshot {
  limit: number | undefined;
  remaining: number | undefined;
  /** Epoch milliseconds at which the current window ends, as estimated from `X-RateLimit-Reset`. */
  resetAt: number | undefined;
  /** Epoch milliseconds until which every call of this class waits after a 429. */
  pausedUntil: number;
}

/**
 * Holds calls back before the server would refuse them. Every response's `X-RateLimit-*` headers
 * update the picture of the key's window; each call reserves one request from what is left, so
 * concurrent calls share it; when nothing is left, calls wait for the window to end. A 429 pauses
 * every call of that class for its `Retry-After`, once, instead of each retrying on its own.
 */
export class RateLimitTracker {
  private readonly windows: Record<RateLimitClass, RateLimitSnapshot> = {
    read: { limit: undefined, remaining: undefined, resetAt: undefined, pausedUntil: 0 },
    write: { limit: undefined, remaining: undefined, resetAt: undefined, pausedUntil: 0 },
  };

  constructor(private readonly clock: Clock) {}

  snapshot(kind: RateLimitClass): Readonly<RateLimitSnapshot> {
    return { ...this.windows[kind] };
  }

  /** How long a call of this class must wait before it may be sent (0 = now). */
  delayBeforeSend(kind: RateLimitClass): number {
    const window = this.windows[kind];
    const now = this.clock.now();
    if (window.pausedUntil > now) return window.pausedUntil - now;
    if (window.resetAt !== undefined && window.resetAt <= now) {
      // The window has ended: a fresh one starts with the full limit.
      window.remaining = window.limit;
      window.resetAt = undefined;
    }
    if (window.remaining !== undefined && window.remaining <= 0 && window.resetAt !== undefined) {
      return window.resetAt - now;
    }
    return 0;
  }

  /** Takes one request from the window; call right before sending. */
  reserve(kind: RateLimitClass): void {
    const window = this.windows[kind];
    if (window.remaining !== undefined) window.remaining -= 1;
  }

  /** Learns from a response's headers. */
  observe(kind: RateLimitClass, headers: Headers): void {
    const limit = toInt(headers.get('x-ratelimit-limit'));
    const remaining = toInt(headers.get('x-ratelimit-remaining'));
    const reset = toInt(headers.get('x-ratelimit-reset'));
    const window = this.windows[kind];
    if (limit !== undefined) window.limit = limit;
    if (remaining !== undefined) {
      // Responses arrive out of order under concurrency: keep the most pessimistic count.
      window.remaining =
        window.remaining === undefined ? remaining : Math.min(window.remaining, remaining);
    }
    if (reset !== undefined) window.resetAt = this.clock.now() + reset * 1000;
  }

  /** After a 429: every call of this class waits `ms` (shared, not per call). */
  pause(kind: RateLimitClass, ms: number): void {
    const window = this.windows[kind];
    const until = this.clock.now() + ms;
    window.pausedUntil = Math.max(window.pausedUntil, until);
    window.remaining = 0;
    window.resetAt = Math.max(window.resetAt ?? 0, until);
  }
}

function toInt(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}
