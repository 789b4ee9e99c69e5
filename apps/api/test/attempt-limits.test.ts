import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATTEMPT_LIMITS,
  createAttemptLimits,
  type AttemptLimit,
  type AttemptLimits,
} from '../src/http/attempt-limit';
import { call, startTestServer, type CallResult, type TestServer } from './setup';

/** Every limit generous except the ones given: each suite exercises one. */
const limitsWith = (
  overrides: Partial<Record<keyof AttemptLimits, AttemptLimit>>,
  redis?: Redis,
): AttemptLimits => {
  const generous = { points: 100_000, durationSeconds: 60 };
  return createAttemptLimits({
    redis,
    keyPrefix: `bxo:test:${randomBytes(6).toString('hex')}`,
    limits: {
      signups: generous,
      signInsByAccount: generous,
      signInsByAddress: generous,
      ...overrides,
    },
  });
};

let sequence = 0;
const uniqueEmail = () => `limits${Date.now()}${(sequence += 1)}@example.com`;
/** A client address of its own (the servers here trust X-Forwarded-For from loopback). */
const from = (address: string) => ({ 'x-forwarded-for': address });
const PASSWORD = 'a long passphrase';

function expectRefused(result: CallResult, code: string, maxSeconds: number) {
  expect(result.status, JSON.stringify(result.body)).toBe(429);
  expect(result.body.code).toBe(code);
  const retryAfter = Number(result.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
}

describe('the documented numbers', () => {
  it('are 5 sign-ups an hour, 10 and 50 failed sign-ins a quarter hour', () => {
    expect(ATTEMPT_LIMITS).toEqual({
      signups: { points: 5, durationSeconds: 3600 },
      signInsByAccount: { points: 10, durationSeconds: 900 },
      signInsByAddress: { points: 50, durationSeconds: 900 },
    });
  });
});

describe('sign-up, per client address', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      trustProxy: 'loopback',
      attemptLimits: limitsWith({ signups: ATTEMPT_LIMITS.signups }),
    });
  });
  afterAll(() => server.close());

  const signUp = (address: string, email = uniqueEmail()) =>
    call(server, 'POST', '/dashboard/api/signup', {
      body: { organisation_name: 'Riverside Hall', email, password: PASSWORD },
      headers: from(address),
    });

  it('allows 5 an hour from one address, then 429 with Retry-After and a message in words', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => signUp('203.0.113.10')));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 201, 429, 429, 429]);
    const refused = results.find((r) => r.status === 429)!;
    expectRefused(refused, 'too_many_signups', 3600);
    expect(refused.body.error).toMatch(
      /^Too many sign-ups from this address \(at most 5 in an hour\)\. Try again in \d+ minutes\.$/,
    );
    // Nothing was created for the refused ones.
    expect(refused.headers.get('set-cookie')).toBeNull();
  });

  it('counts each address on its own, IPv6 by its /64', async () => {
    expect((await signUp('203.0.113.11')).status).toBe(201);
    for (let i = 1; i <= 5; i++) {
      expect((await signUp(`2001:db8:1:2::${i}`)).status).toBe(201);
    }
    expectRefused(await signUp('2001:db8:1:2:ffff::9'), 'too_many_signups', 3600);
    expect((await signUp('2001:db8:1:3::1')).status).toBe(201);
  });
});

describe('sign-in, failures per address and email and per address', () => {
  let server: TestServer;
  const victim = { email: uniqueEmail(), password: PASSWORD };
  beforeAll(async () => {
    server = await startTestServer({
      trustProxy: 'loopback',
      attemptLimits: limitsWith({
        signInsByAccount: { points: 3, durationSeconds: 900 },
        signInsByAddress: { points: 6, durationSeconds: 900 },
      }),
    });
    const created = await call(server, 'POST', '/dashboard/api/signup', {
      body: { organisation_name: 'Victim Hall', ...victim },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  });
  afterAll(() => server.close());

  const signIn = (address: string, email: string, password: string) =>
    call(server, 'POST', '/dashboard/api/login', {
      body: { email, password },
      headers: from(address),
    });

  it('stops password spraying: many emails from one address are refused past the address limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) {
      statuses.push((await signIn('198.51.100.1', uniqueEmail(), 'Summer2026!')).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429, 429]);
    const refused = await signIn('198.51.100.1', uniqueEmail(), 'Summer2026!');
    expectRefused(refused, 'too_many_attempts', 900);
    expect(refused.body.error).toMatch(
      /^Too many failed sign-ins from this address\. Try again in \d+ minutes\.$/,
    );
    // Even the right password waits: the address is out of attempts.
    expect((await signIn('198.51.100.1', victim.email, victim.password)).status).toBe(429);
    // Another address is not affected.
    expect((await signIn('198.51.100.2', victim.email, victim.password)).status).toBe(200);
  });

  it('parallel guesses cannot slip past the limit while the first are still being checked', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => signIn('198.51.100.3', victim.email, 'not the password')),
    );
    expect(results.filter((r) => r.status === 401)).toHaveLength(3);
    expect(results.filter((r) => r.status === 429)).toHaveLength(9);
  });

  it('a stranger guessing from elsewhere cannot lock the owner out', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await signIn('192.0.2.66', victim.email, 'guess guess')).status).toBe(401);
    }
    const locked = await signIn('192.0.2.66', victim.email, 'guess guess');
    expectRefused(locked, 'too_many_attempts', 900);
    expect(locked.body.error).toMatch(/^Too many failed sign-ins to this account/);
    // The stranger is refused even with the right password; the owner, elsewhere, is not.
    expect((await signIn('192.0.2.66', victim.email, victim.password)).status).toBe(429);
    expect((await signIn('192.0.2.77', victim.email, victim.password)).status).toBe(200);
  });

  it('counts failures only: colleagues signing in from one office address do not lock it', async () => {
    const office = '192.0.2.100';
    // Twice the address limit in successful sign-ins, with a typo now and then.
    for (let i = 0; i < 12; i++) {
      if (i % 4 === 0) {
        expect((await signIn(office, victim.email, 'a typo in it')).status).toBe(401);
      }
      expect((await signIn(office, victim.email, victim.password)).status).toBe(200);
    }
  });

  it('a successful sign-in clears that email’s count from that address', async () => {
    const address = '192.0.2.101';
    // Four failures in all, past the account's limit of three, but never three in a row.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2; i++) {
        expect((await signIn(address, victim.email, 'wrong again')).status).toBe(401);
      }
      expect((await signIn(address, victim.email, victim.password)).status).toBe(200);
    }
  });
});
