import type { Clock } from './clock';

/** Requests count against one of two limits: reads (GET) and writes (POST, PATCH). */
export type RateLimitClass = 'read' | 'write';

/** What the client last learned about one class's window from the server's headers. */
export interface RateLimitSnapshot {
  /** Requests per window (`X-RateLimit-Limit`); undefined until an answer has told. */
  limit: number | undefined;
  /**
   * Requests left in the current window, as the client counts them: the server's
   * `X-RateLimit-Remaining`, less the calls sent since; undefined until an answer has told.
   */
  remaining: number | undefined;
  /** Epoch milliseconds at which the current window ends, as estimated from `X-RateLimit-Reset`. */
  resetAt: number | undefined;
  /** Epoch milliseconds until which every call of this class waits after a 429. */
  pausedUntil: number;
}

/** One request taken from a window, to be settled by `observe` (answered) or `release` (not). */
export interface Reservation {
  readonly kind: RateLimitClass;
  /** The window it was taken from, counted from the client's start. */
  readonly window: number;
}

interface WindowState extends RateLimitSnapshot {
  /** Reservations not yet answered (or given back). */
  inFlight: number;
  /** Increases with each window: a reservation of an earlier one is not given back to this one. */
  window: number;
  /** The estimated end of the window before this one, once the client saw it end. */
  previousEnd: number | undefined;
  /** The longest `X-RateLimit-Reset` seen, in ms: about the length of a window. */
  longest: number;
}

/**
 * Holds calls back before the server would refuse them. Every response's `X-RateLimit-*` headers
 * update the picture of the key's window; each call reserves one request from what is left, so
 * concurrent calls share it; when nothing is left, calls wait for the window to end. A 429 pauses
 * every call of that class for its `Retry-After`, once, instead of each retrying on its own.
 *
 * The server counts fixed windows and reports their end in whole seconds, rounded up, so the
 * client's estimate of a window's end may be up to a second late. An answer whose reset lies more
 * than half a window beyond the estimate comes from the server's next window: its count replaces
 * the old one (less the requests still in flight). Within a window, the lowest count wins, since
 * answers to concurrent calls arrive in any order. A request that got no answer is given back.
 */
export class RateLimitTracker {
  private readonly windows: Record<RateLimitClass, WindowState> = {
    read: RateLimitTracker.empty(),
    write: RateLimitTracker.empty(),
  };
  private readonly listeners: Record<RateLimitClass, Set<() => void>> = {
    read: new Set(),
    write: new Set(),
  };

  constructor(private readonly clock: Clock) {}

  private static empty(): WindowState {
    return {
      limit: undefined,
      remaining: undefined,
      resetAt: undefined,
      pausedUntil: 0,
      inFlight: 0,
      window: 0,
      previousEnd: undefined,
      longest: 1000,
    };
  }

  snapshot(kind: RateLimitClass): Readonly<RateLimitSnapshot> {
    const { limit, remaining, resetAt, pausedUntil } = this.windows[kind];
    return { limit, remaining, resetAt, pausedUntil };
  }

  /**
   * How long a call of this class must wait before it may be sent: 0 for now; `Infinity` when
   * nothing is left of a window whose end is not known yet, until an answer in flight tells it.
   */
  delayBeforeSend(kind: RateLimitClass): number {
    const window = this.windows[kind];
    const now = this.clock.now();
    if (window.pausedUntil > now) return window.pausedUntil - now;
    if (window.resetAt !== undefined && window.resetAt <= now) {
      // The window has ended: a fresh one starts with the full limit, its end not yet known.
      window.previousEnd = window.resetAt;
      window.remaining = window.limit;
      window.resetAt = undefined;
      window.window += 1;
    }
    if (window.remaining !== undefined && window.remaining <= 0) {
      if (window.resetAt !== undefined) return window.resetAt - now;
      if (window.inFlight > 0) return Infinity;
    }
    return 0;
  }

  /** Takes one request from the window; call right before sending. */
  reserve(kind: RateLimitClass): Reservation {
    const window = this.windows[kind];
    if (window.remaining !== undefined) window.remaining -= 1;
    window.inFlight += 1;
    return { kind, window: window.window };
  }

  /** Gives back a request that never got an answer: the server did not count it. */
  release(reservation: Reservation): void {
    const window = this.windows[reservation.kind];
    window.inFlight = Math.max(0, window.inFlight - 1);
    if (reservation.window === window.window && window.remaining !== undefined) {
      window.remaining = Math.min(window.remaining + 1, window.limit ?? Infinity);
    }
    this.notify(reservation.kind);
  }

  /** Learns from a response's headers; `reservation` is the answered request's, if it took one. */
  observe(kind: RateLimitClass, headers: Headers, reservation?: Reservation): void {
    const window = this.windows[kind];
    if (reservation) window.inFlight = Math.max(0, window.inFlight - 1);
    const limit = toInt(headers.get('x-ratelimit-limit'));
    const remaining = toInt(headers.get('x-ratelimit-remaining'));
    const reset = toInt(headers.get('x-ratelimit-reset'));
    if (limit !== undefined) window.limit = limit;
    if (reset === undefined) {
      if (remaining !== undefined) {
        window.remaining = Math.min(window.remaining ?? remaining, remaining);
      }
      this.notify(kind);
      return;
    }
    const now = this.clock.now();
    const end = now + reset * 1000;
    window.longest = Math.max(window.longest, reset * 1000);
    const margin = window.longest / 2;
    const known = window.resetAt ?? window.previousEnd;
    if (known !== undefined && end < known - margin) {
      // A late answer from a window already over: nothing in it applies now.
    } else if (window.resetAt !== undefined && end <= window.resetAt + margin) {
      // The same window: answers to concurrent calls arrive in any order, so keep the lowest count
      // and the earliest end (each reset is rounded up, never down).
      if (remaining !== undefined) {
        window.remaining = Math.min(window.remaining ?? remaining, remaining);
      }
      window.resetAt = Math.min(window.resetAt, end);
    } else if (window.previousEnd !== undefined && end <= window.previousEnd + margin) {
      // An answer from the window the client has already seen end.
    } else {
      // The server's next window: its count, less what is in flight and not yet counted there.
      if (window.resetAt !== undefined) {
        window.previousEnd = window.resetAt;
        window.window += 1;
      }
      window.resetAt = end;
      if (remaining !== undefined) window.remaining = Math.max(0, remaining - window.inFlight);
    }
    this.notify(kind);
  }

  /** After a 429: every call of this class waits `ms` (shared, not per call). */
  pause(kind: RateLimitClass, ms: number): void {
    const window = this.windows[kind];
    const until = this.clock.now() + ms;
    window.pausedUntil = Math.max(window.pausedUntil, until);
    window.remaining = 0;
    window.resetAt = Math.max(window.resetAt ?? 0, until);
    this.notify(kind);
  }

  /** Calls `listener` on every change to the class's window, until the returned function is called. */
  onChange(kind: RateLimitClass, listener: () => void): () => void {
    this.listeners[kind].add(listener);
    return () => this.listeners[kind].delete(listener);
  }

  private notify(kind: RateLimitClass): void {
    for (const listener of [...this.listeners[kind]]) listener();
  }
}

function toInt(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}
