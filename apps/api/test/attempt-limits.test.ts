import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ATTEMPT_LIMITS,
  createAttemptLimits,
  type AttemptLimit,
  type AttemptLimits,
} from '../src/http/attempt-limit';
import { createOrm, type Orm } from '../src/db/orm';
import { entities } from '../src/modules/entities';
import { poolOf } from '../src/db/driver';
import { revokeKey } from '../src/modules/api-keys/api-key.service';
import {
  call,
  createTenant,
  getTestOrm,
  startTestServer,
  useOfflineTestServer,
  useTestServer,
  type CallResult,
  type TestServer,
} from './setup';
import { request, startApi, stopAll, type ApiProcess } from './scale/harness';

const redisUrl = inject('redisUrl');

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
      apiAuthFailures: generous,
      ...overrides,
    },
  });
};

let sequence = 0;
const uniqueEmail = () => `limits${Date.now()}${(sequence += 1)}@example.com`;
/** A client address of its own (the servers here trust X-Forwarded-For from loopback). */
const from = (address: string) => ({ 'x-forwarded-for': address });
const unknownKey = () => `bxo_live_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x')}`;
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
  it('are 5 sign-ups an hour, 10 and 50 failed sign-ins a quarter hour, 30 failed API authentications a minute, 5 test events a minute per webhook endpoint and 20 an hour per organisation', () => {
    expect(ATTEMPT_LIMITS).toEqual({
      signups: { points: 5, durationSeconds: 3600 },
      signInsByAccount: { points: 10, durationSeconds: 900 },
      signInsByAddress: { points: 50, durationSeconds: 900 },
      apiAuthFailures: { points: 30, durationSeconds: 60 },
      testEventsByEndpoint: { points: 5, durationSeconds: 60 },
      testEventsByOrganisation: { points: 20, durationSeconds: 3600 },
    });
  });
});

describe('sign-up, per client address', () => {
  const server = useTestServer({
    trustProxy: 'loopback',
    attemptLimits: limitsWith({ signups: ATTEMPT_LIMITS.signups }),
  });

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

describe('failed API authentications, per client address', () => {
  const LIMIT = 5;
  let orm: Orm;
  let server: TestServer;
  let acquired = 0;

  beforeAll(async () => {
    // An ORM of its own, so that every connection it hands out can be counted.
    orm = await createOrm({ entities, databaseUrl: inject('databaseUrl'), poolMax: 5 });
    (await poolOf(orm.em.fork())).on('acquire', () => (acquired += 1));
    server = await startTestServer({
      orm,
      trustProxy: 'loopback',
      attemptLimits: limitsWith({ apiAuthFailures: { points: LIMIT, durationSeconds: 60 } }),
    });
  });
  afterAll(async () => {
    await server.close();
    await orm.close();
  });

  const get = (address: string, key?: string) =>
    call(server, 'GET', '/api/v1/events', { key, headers: from(address) });

  const AUTH_REFUSAL =
    /^Too many requests with a missing or invalid API key from this address \(at most 5 in a minute\)\. Retry after \d+ s\.$/;

  /** The refusal of a request without a valid key from an address past the limit. */
  function expectAuthRefusal(result: CallResult) {
    expectRefused(result, 'too_many_failed_authentications', 60);
    expect(result.body.error).toMatch(AUTH_REFUSAL);
    expect(Object.keys(result.body as object).sort()).toEqual(['code', 'error']);
    expect(result.headers.get('x-ratelimit-limit')).toBeNull();
    expect(result.headers.get('www-authenticate')).toBeNull();
  }

  it('past the limit, requests without a valid key get a 429; a well-formed key costs one lookup, anything else none', async () => {
    const before = acquired;
    for (let i = 0; i < LIMIT; i++) {
      expect((await get('203.0.113.50', unknownKey())).status).toBe(401);
    }
    // Each of those unknown keys cost a lookup: the counter sees the database's work.
    expect(acquired - before).toBe(LIMIT);

    const limitedAt = acquired;
    const unknown = await Promise.all(
      Array.from({ length: 20 }, () => get('203.0.113.50', unknownKey())),
    );
    for (const result of unknown) expectAuthRefusal(result);
    // A well-formed key might be valid: it is looked up, once.
    expect(acquired - limitedAt).toBe(20);

    const unreadAt = acquired;
    for (const result of [
      await get('203.0.113.50'),
      await get('203.0.113.50', 'not-a-key'),
      await call(server, 'GET', '/api/v1/events', {
        headers: { ...from('203.0.113.50'), authorization: 'Basic abc' },
      }),
    ]) {
      expectAuthRefusal(result);
    }
    // A missing or malformed key cannot be valid: refused without the database.
    expect(acquired).toBe(unreadAt);
  });

  it('never refuses a valid key: door scanners behind one address keep working while another device there fails', async () => {
    const address = '203.0.113.52';
    const doors = [await createTenant(['read']), await createTenant(['read'])];
    const free = await createTenant(['read'], 'free');
    for (let i = 0; i < LIMIT; i++) {
      expect((await get(address, unknownKey())).status).toBe(401);
    }
    expectAuthRefusal(await get(address, unknownKey()));

    for (let round = 0; round < 3; round++) {
      for (const door of doors) {
        const ok = await get(address, door.key);
        expect(ok.status, JSON.stringify(ok.body)).toBe(200);
        // Its own per-key limit, not the address's.
        expect(ok.headers.get('x-ratelimit-limit')).toBe('100000');
        expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(100_000 - round - 1));
      }
      // The misconfigured device there is still refused.
      expectAuthRefusal(await get(address, unknownKey()));
      expectAuthRefusal(await get(address));
    }
    // A valid key's later checks keep their order.
    expect((await get(address, free.key)).status).toBe(402);
  });

  it('past the limit, a revoked key is refused exactly as an unknown one: the 429 tells no more than a 401', async () => {
    const address = '203.0.113.53';
    const revoked = await createTenant(['read']);
    await revokeKey((await getTestOrm()).em.fork(), revoked.apiKeyId);
    for (let i = 0; i < LIMIT; i++) {
      expect((await get(address, unknownKey())).status).toBe(401);
    }
    const ofRevoked = await get(address, revoked.key);
    const ofUnknown = await get(address, unknownKey());
    expectAuthRefusal(ofRevoked);
    expectAuthRefusal(ofUnknown);
    const shape = (result: CallResult) => ({
      status: result.status,
      code: result.body.code,
      error: (result.body.error as string).replace(/\d+ s\.$/, 'N s.'),
      headers: [...result.headers.keys()]
        .filter((name) => !['date', 'x-request-id', 'content-length'].includes(name))
        .sort(),
    });
    expect(shape(ofRevoked)).toEqual(shape(ofUnknown));
  });

  it('counts every 401, including missing and malformed keys, and nothing else', async () => {
    const tenant = await createTenant(['read'], 'free');
    const address = '203.0.113.60';
    // 402 and 403 are not failed authentications.
    for (let i = 0; i < LIMIT * 2; i++) {
      expect((await get(address, tenant.key)).status).toBe(402);
    }
    expect(
      (
        await call(server, 'POST', '/api/v1/events', {
          key: (await createTenant(['read'])).key,
          body: {},
          headers: from(address),
        })
      ).status,
    ).toBe(403);
    const failures = [
      await get(address),
      await get(address, 'hello'),
      await call(server, 'GET', '/api/v1/events', {
        headers: { ...from(address), authorization: 'Basic abc' },
      }),
      await get(address, unknownKey()),
      await get(address, unknownKey()),
    ];
    expect(failures.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expectRefused(await get(address, unknownKey()), 'too_many_failed_authentications', 60);
    // The free organisation's key is still a valid key: its answer stays a 402.
    expect((await get(address, tenant.key)).status).toBe(402);
  });

  it('keeps the documented order for valid keys, and rate limits exact', async () => {
    const limited = await startTestServer({
      readsPerMinute: 60,
      trustProxy: 'loopback',
      attemptLimits: limitsWith({ apiAuthFailures: { points: LIMIT, durationSeconds: 60 } }),
    });
    try {
      const tenant = await createTenant(['read']);
      const results = await Promise.all(
        Array.from({ length: 100 }, () =>
          call(limited, 'GET', '/api/v1/events', { key: tenant.key, headers: from('10.1.1.1') }),
        ),
      );
      const counts: Record<number, number> = {};
      for (const result of results) counts[result.status] = (counts[result.status] ?? 0) + 1;
      expect(counts).toEqual({ 200: 60, 429: 40 });
      expect(results.find((r) => r.status === 429)!.body.code).toBe('rate_limited');
    } finally {
      await limited.close();
    }
  });
});

describe('failed API authentications while the database is unreachable', () => {
  const server = useOfflineTestServer({
    trustProxy: 'loopback',
    attemptLimits: limitsWith({ apiAuthFailures: { points: 3, durationSeconds: 60 } }),
  });

  it('a limited address gets its 429 at once for a key that cannot be valid', async () => {
    const address = '203.0.113.70';
    const get = (key?: string) =>
      call(server, 'GET', '/api/v1/events', { key, headers: from(address) });
    // Malformed keys are refused without the database: they use up the address's attempts.
    for (let i = 0; i < 3; i++) expect((await get('malformed')).status).toBe(401);
    expectRefused(await get('malformed'), 'too_many_failed_authentications', 60);
    expectRefused(await get(), 'too_many_failed_authentications', 60);
    // A well-formed key might be valid, so it needs the database, which is down.
    expect((await get(unknownKey())).status).toBe(503);
    // Elsewhere the same.
    const elsewhere = await call(server, 'GET', '/api/v1/events', {
      key: unknownKey(),
      headers: from('203.0.113.71'),
    });
    expect(elsewhere.status).toBe(503);
  });
});

describe('failed API authentications, set by AUTH_FAILURES_PER_MINUTE', () => {
  let api: ApiProcess;
  beforeAll(async () => {
    api = await startApi({
      DATABASE_URL: inject('databaseUrl'),
      AUTH_FAILURES_PER_MINUTE: '3',
    });
  });
  afterAll(stopAll);

  it('the server process refuses unknown keys past the configured number, and valid keys never', async () => {
    const tenant = await createTenant(['read']);
    const get = (key?: string) => request(api.baseUrl, 'GET', '/api/v1/events', { key });
    for (let i = 0; i < 3; i++) expect((await get(unknownKey())).status).toBe(401);
    const refused = await get(unknownKey());
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/\(at most 3 in a minute\)/);
    expect((await get()).status).toBe(429);
    expect((await get(tenant.key)).status).toBe(200);
  });
});

const redisClient = (url: string) => {
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  return client;
};

describe.skipIf(!redisUrl)('counted in Redis, shared by two instances (needs REDIS_URL)', () => {
  const clients: Redis[] = [];
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await Promise.all(clients.map((client) => client.quit()));
  });

  it('failures on one instance refuse the address on the other', async () => {
    const keyPrefix = `bxo:test:${randomBytes(6).toString('hex')}`;
    for (let i = 0; i < 2; i++) {
      const redis = redisClient(redisUrl!);
      clients.push(redis);
      if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
      servers.push(
        await startTestServer({
          trustProxy: 'loopback',
          attemptLimits: createAttemptLimits({
            redis,
            keyPrefix,
            limits: { ...ATTEMPT_LIMITS, apiAuthFailures: { points: 4, durationSeconds: 60 } },
          }),
        }),
      );
    }
    const [a, b] = servers as [TestServer, TestServer];
    const get = (server: TestServer, address: string, key?: string) =>
      call(server, 'GET', '/api/v1/events', { key, headers: from(address) });
    for (let i = 0; i < 4; i++) {
      expect((await get(i % 2 === 0 ? a : b, '203.0.113.80', unknownKey())).status).toBe(401);
    }
    expectRefused(
      await get(a, '203.0.113.80', unknownKey()),
      'too_many_failed_authentications',
      60,
    );
    expectRefused(await get(b, '203.0.113.80'), 'too_many_failed_authentications', 60);
    const tenant = await createTenant(['read']);
    expect((await get(b, '203.0.113.81', tenant.key)).status).toBe(200);
    // A valid key from the limited address passes on both, with its own rate limit.
    for (const server of [a, b]) {
      const ok = await get(server, '203.0.113.80', tenant.key);
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('100000');
    }
    expectRefused(
      await get(b, '203.0.113.80', unknownKey()),
      'too_many_failed_authentications',
      60,
    );
  });
});
