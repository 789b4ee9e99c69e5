import { beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from './clock';
import { RateLimitTracker } from './rate-limit';

const T0 = Date.UTC(2030, 0, 1);
let now = T0;
const clock: Clock = { now: () => now, sleep: () => Promise.resolve() };

const window = (limit: number, remaining: number, reset: number) =>
  new Headers({
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(reset),
  });

let tracker: RateLimitTracker;
beforeEach(() => {
  now = T0;
  tracker = new RateLimitTracker(clock);
});

describe('RateLimitTracker', () => {
  it('lets everything through while it knows nothing', () => {
    expect(tracker.snapshot('read')).toEqual({
      limit: undefined,
      remaining: undefined,
      resetAt: undefined,
      pausedUntil: 0,
    });
    tracker.reserve('read');
    expect(tracker.delayBeforeSend('read')).toBe(0);
    expect(tracker.snapshot('read').remaining).toBeUndefined();
  });

  it('learns the window from the headers', () => {
    tracker.observe('read', window(60, 59, 42));
    expect(tracker.snapshot('read')).toEqual({
      limit: 60,
      remaining: 59,
      resetAt: T0 + 42_000,
      pausedUntil: 0,
    });
    expect(tracker.snapshot('write').limit).toBeUndefined();
  });

  it('counts reservations down and holds calls until the window resets', () => {
    tracker.observe('write', window(10, 2, 30));
    expect(tracker.delayBeforeSend('write')).toBe(0);
    tracker.reserve('write');
    expect(tracker.delayBeforeSend('write')).toBe(0);
    tracker.reserve('write');
    expect(tracker.delayBeforeSend('write')).toBe(30_000);
    now += 12_000;
    expect(tracker.delayBeforeSend('write')).toBe(18_000);
    now = T0 + 30_000;
    expect(tracker.delayBeforeSend('write')).toBe(0);
    expect(tracker.snapshot('write')).toMatchObject({ remaining: 10, resetAt: undefined });
  });

  it('does not wait on an empty window whose reset it does not know', () => {
    tracker.observe(
      'read',
      new Headers({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0' }),
    );
    expect(tracker.delayBeforeSend('read')).toBe(0);
  });

  it('keeps the lowest remaining count when answers arrive out of order', () => {
    tracker.observe('read', window(60, 40, 30));
    tracker.observe('read', window(60, 42, 30));
    expect(tracker.snapshot('read').remaining).toBe(40);
  });

  it('ignores unreadable headers', () => {
    tracker.observe('read', window(60, 5, 30));
    tracker.observe(
      'read',
      new Headers({
        'x-ratelimit-limit': 'lots',
        'x-ratelimit-remaining': '-1',
        'x-ratelimit-reset': '2.5',
      }),
    );
    expect(tracker.snapshot('read')).toEqual({
      limit: 60,
      remaining: 5,
      resetAt: T0 + 30_000,
      pausedUntil: 0,
    });
  });

  it('tracks reads and writes apart', () => {
    tracker.observe('read', window(60, 0, 20));
    expect(tracker.delayBeforeSend('read')).toBe(20_000);
    expect(tracker.delayBeforeSend('write')).toBe(0);
    tracker.pause('write', 5000);
    expect(tracker.delayBeforeSend('write')).toBe(5000);
    expect(tracker.delayBeforeSend('read')).toBe(20_000);
  });

  it('pauses a class once after a 429: pauses overlap instead of adding up', () => {
    tracker.observe('read', window(60, 0, 4));
    tracker.pause('read', 4000);
    tracker.pause('read', 4000);
    tracker.pause('read', 1000);
    expect(tracker.snapshot('read')).toMatchObject({ pausedUntil: T0 + 4000, remaining: 0 });
    expect(tracker.delayBeforeSend('read')).toBe(4000);
    now += 1000;
    tracker.pause('read', 4000);
    expect(tracker.delayBeforeSend('read')).toBe(4000);
    now += 4000;
    expect(tracker.delayBeforeSend('read')).toBe(0);
    expect(tracker.snapshot('read').remaining).toBe(60);
  });

  it('keeps a pause in force even if the window seems to have room', () => {
    tracker.pause('write', 3000);
    tracker.observe('write', window(10, 9, 1));
    expect(tracker.delayBeforeSend('write')).toBe(3000);
  });

  it('returns a copy as the snapshot', () => {
    tracker.observe('read', window(60, 10, 30));
    const snapshot = tracker.snapshot('read') as { remaining: number };
    snapshot.remaining = 0;
    expect(tracker.snapshot('read').remaining).toBe(10);
  });

  it('takes the count of the server’s next window, less the requests still in flight', () => {
    tracker.observe('read', window(5, 1, 60));
    const first = tracker.reserve('read');
    tracker.reserve('read');
    now += 59_700;
    // Reset 60 from now: far beyond the end the client knew, so a new window with 4 left.
    tracker.observe('read', window(5, 4, 60), first);
    expect(tracker.snapshot('read')).toMatchObject({ remaining: 3, resetAt: now + 60_000 });
    expect(tracker.delayBeforeSend('read')).toBe(0);
  });

  it('ignores the count of a late answer from a window already over', () => {
    tracker.observe('read', window(5, 0, 10));
    const late = tracker.reserve('read');
    now += 10_000;
    expect(tracker.delayBeforeSend('read')).toBe(0);
    expect(tracker.snapshot('read').remaining).toBe(5);
    tracker.observe('read', window(5, 0, 1), late);
    expect(tracker.snapshot('read').remaining).toBe(5);
  });

  it('after a reset, holds calls beyond the limit until an answer tells the new window’s end', () => {
    tracker.observe('read', window(2, 0, 10));
    now += 10_000;
    const sent = [tracker.delayBeforeSend('read'), tracker.delayBeforeSend('read')];
    const a = tracker.reserve('read');
    tracker.reserve('read');
    expect(sent).toEqual([0, 0]);
    expect(tracker.delayBeforeSend('read')).toBe(Infinity);
    tracker.observe('read', window(2, 1, 60), a);
    expect(tracker.delayBeforeSend('read')).toBe(60_000);
  });

  it('gives back a request that got no answer, to the window it was taken from only', () => {
    tracker.observe('write', window(10, 1, 30));
    const lost = tracker.reserve('write');
    expect(tracker.delayBeforeSend('write')).toBe(30_000);
    tracker.release(lost);
    expect(tracker.snapshot('write').remaining).toBe(1);
    expect(tracker.delayBeforeSend('write')).toBe(0);

    const old = tracker.reserve('write');
    now += 30_000;
    tracker.delayBeforeSend('write');
    tracker.release(old);
    expect(tracker.snapshot('write').remaining).toBe(10);
  });
});
