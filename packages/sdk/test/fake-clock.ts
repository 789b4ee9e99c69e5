import { AbortError, type Clock } from '../src/core/clock';

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
}

/** 2030-01-01T00:00:00Z: a whole second, so HTTP-dates (second precision) land exactly on it. */
export const CLOCK_START = Date.UTC(2030, 0, 1);

/**
 * Virtual time for the client: nothing really waits. Every `sleep` is recorded; pending sleeps
 * fire in order of their due time, one per turn of the event loop (so concurrent calls get to run
 * between them), and `now()` jumps to each due time. With `auto: false`, sleeps stay pending until
 * `advance()` moves the clock past them.
 */
export class FakeClock implements Clock {
  /** Every sleep asked for, in milliseconds, in the order asked. */
  readonly sleeps: number[] = [];
  private time: number;
  private timers: Timer[] = [];
  private seq = 0;
  private scheduled = false;
  private readonly waiters: (() => void)[] = [];
  private readonly auto: boolean;

  constructor(options: { start?: number; auto?: boolean } = {}) {
    this.time = options.start ?? CLOCK_START;
    this.auto = options.auto ?? true;
  }

  now(): number {
    return this.time;
  }

  /** Sleeps not yet over. */
  get pending(): number {
    return this.timers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new AbortError('aborted'));
        return;
      }
      const onAbort = () => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(new AbortError('aborted'));
      };
      const timer: Timer = {
        at: this.time + ms,
        seq: this.seq++,
        fire: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
      this.waiters.splice(0).forEach((wake) => wake());
      if (this.auto) this.schedule();
    });
  }

  /** Resolves once `count` sleeps in all have been asked for. */
  async sleepsAsked(count: number): Promise<void> {
    while (this.sleeps.length < count) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Moves time on by `ms`, firing every sleep due by then, and lets the woken code run. */
  async advance(ms: number): Promise<void> {
    const until = this.time + ms;
    for (let next = this.earliest(); next && next.at <= until; next = this.earliest()) {
      this.fire(next);
      await turn();
    }
    this.time = until;
    await turn();
  }

  private earliest(): Timer | undefined {
    return [...this.timers].sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
  }

  private fire(timer: Timer): void {
    this.timers = this.timers.filter((t) => t !== timer);
    this.time = Math.max(this.time, timer.at);
    timer.fire();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const next = this.earliest();
      if (next) this.fire(next);
      if (this.timers.length > 0) this.schedule();
    });
  }
}

/** One turn of the event loop: every promise chain that can move on has. */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Lets the event loop turn until `condition` holds; fails after `turns` turns. */
export async function until(condition: () => boolean, turns = 100): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (condition()) return;
    await turn();
  }
  throw new Error(`condition not met after ${turns} turns`);
}
