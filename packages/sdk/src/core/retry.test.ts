import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY, isRetryableStatus, parseRetryAfter } from './retry';

describe('DEFAULT_RETRY', () => {
  it('retries twice, backing off from 500 ms to at most 8 s, waiting at most 60 s on a 429', () => {
    expect(DEFAULT_RETRY).toEqual({
      maxRetries: 2,
      initialDelayMs: 500,
      maxDelayMs: 8000,
      maxRetryAfterMs: 60_000,
    });
  });
});

describe('backoffDelay', () => {
  const bases = [500, 1000, 2000, 4000, 8000, 8000, 8000];

  it('doubles from 500 ms and stops at 8 s when the jitter is 0', () => {
    expect(bases.map((_, retry) => backoffDelay(retry, DEFAULT_RETRY, () => 0))).toEqual(bases);
  });

  it('takes off at most 25 % when the jitter is at its top', () => {
    const top = 1 - Number.EPSILON;
    bases.forEach((base, retry) => {
      const delay = backoffDelay(retry, DEFAULT_RETRY, () => top);
      expect(delay).toBeGreaterThanOrEqual(base * 0.75);
      expect(delay).toBeCloseTo(base * 0.75, 6);
    });
  });

  it('stays within [75 %, 100 %] of the base for any jitter', () => {
    for (const r of [0, 0.1, 0.25, 0.5, 0.9, 0.999999]) {
      for (let retry = 0; retry < 8; retry++) {
        const base = Math.min(500 * 2 ** retry, 8000);
        const delay = backoffDelay(retry, DEFAULT_RETRY, () => r);
        expect(delay).toBeGreaterThanOrEqual(base * 0.75);
        expect(delay).toBeLessThanOrEqual(base);
      }
    }
  });

  it('follows a custom policy', () => {
    const policy = { ...DEFAULT_RETRY, initialDelayMs: 100, maxDelayMs: 250 };
    expect([0, 1, 2, 3].map((retry) => backoffDelay(retry, policy, () => 0))).toEqual([
      100, 200, 250, 250,
    ]);
  });
});

describe('isRetryableStatus', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries %i', (status) => {
    expect(isRetryableStatus(status, undefined)).toBe(true);
  });

  it.each([400, 401, 402, 403, 404, 413, 422])('does not retry %i', (status) => {
    expect(isRetryableStatus(status, undefined)).toBe(false);
  });

  it('retries a 409 only while the same idempotency key is still in flight', () => {
    expect(isRetryableStatus(409, 'idempotency_in_flight')).toBe(true);
    expect(isRetryableStatus(409, 'already_checked_in')).toBe(false);
    expect(isRetryableStatus(409, 'ticket_void')).toBe(false);
    expect(isRetryableStatus(409, undefined)).toBe(false);
  });

  it('does not retry other statuses that carry the in-flight code', () => {
    expect(isRetryableStatus(422, 'idempotency_in_flight')).toBe(false);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2030, 0, 1, 12, 0, 0);

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('17', now)).toBe(17_000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 3 ', now)).toBe(3000);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
  });

  it('reads an HTTP-date as the time left until it', () => {
    expect(parseRetryAfter('Tue, 01 Jan 2030 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter(new Date(now + 90_000).toUTCString(), now)).toBe(90_000);
  });

  it('reads a date in the past as no wait, never a negative one', () => {
    expect(parseRetryAfter('Tue, 01 Jan 2030 11:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', now)).toBe(0);
  });

  it('ignores a missing header', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it.each(['', 'soon', '5 apples', '1e3', '0x10', 'Infinity', '-5', '-1', '-2.5'])(
    'ignores the unreadable value %j',
    (value) => {
      expect(parseRetryAfter(value, now)).toBeUndefined();
    },
  );
});
