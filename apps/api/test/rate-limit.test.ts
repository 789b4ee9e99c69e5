import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAttemptLimits } from '../src/http/attempt-limit';
import { createRateLimits } from '../src/http/rate-limit';
import { expectOwnPlacesInWindow } from './assertions';
import { eventInput } from './fixtures';
import {
  call,
  closedPort,
  createKey,
  createTenant,
  readAndWriteEvents,
  startTestServer,
  useTestServer,
  type CallResult,
  type TestServer,
} from './setup';

const redisUrl = inject('redisUrl');

const eventBody = eventInput('Rate limited');

const statuses = (results: CallResult[]) => {
  const counts: Record<number, number> = {};
  for (const result of results) counts[result.status] = (counts[result.status] ?? 0) + 1;
  return counts;
};

const parallel = (n: number, request: (i: number) => Promise<CallResult>) =>
  Promise.all(Array.from({ length: n }, (_, i) => request(i)));

/** `n` parallel reads of the event list with `key`, sent to `servers` in turn. */
const parallelReads = (n: number, key: string, ...servers: Pick<TestServer, 'baseUrl'>[]) =>
  parallel(n, (i) => call(servers[i % servers.length]!, 'GET', '/api/v1/events', { key }));

function expectRateLimited(result: CallResult, limit: number, noun: 'read' | 'write') {
  expect(result.status, JSON.stringify(result.body)).toBe(429);
  const retryAfter = result.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  const seconds = Number(retryAfter);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  expect(result.body.error).toBe(
    `Rate limit exceeded: ${limit} ${noun} requests per minute. Retry after ${seconds} s.`,
  );
  expect(result.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(result.headers.get('x-ratelimit-remaining')).toBe('0');
}

describe('in-process store with the default limits', () => {
  const server = useTestServer({ readsPerMinute: 60, writesPerMinute: 10 });

  it('lets exactly 60 of 100 parallel reads through', async () => {
    const tenant = await createTenant();
    const results = await parallelReads(100, tenant.key, server);
    expect(statuses(results)).toEqual({ 200: 60, 429: 40 });
    expectOwnPlacesInWindow(results, 60);
    for (const result of results.filter((r) => r.status === 429)) {
      expectRateLimited(result, 60, 'read');
    }
  });

  it('counts down X-RateLimit-Remaining exactly and reports the reset', async () => {
    const tenant = await createTenant();
    for (let i = 1; i <= 5; i++) {
      const result = await call(server, 'GET', '/api/v1/events', { key: tenant.key });
      expect(result.status).toBe(200);
      expect(result.headers.get('x-ratelimit-limit')).toBe('60');
      expect(result.headers.get('x-ratelimit-remaining')).toBe(String(60 - i));
      const reset = Number(result.headers.get('x-ratelimit-reset'));
      expect(Number.isInteger(reset)).toBe(true);
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
      expect(result.headers.get('retry-after')).toBeNull();
    }
  });

  it('counts writes separately from reads', async () => {
    const tenant = await createTenant();
    const read = await call(server, 'GET', '/api/v1/events', { key: tenant.key });
    expect(read.headers.get('x-ratelimit-remaining')).toBe('59');

    for (let i = 1; i <= 10; i++) {
      // POST and PATCH are both writes; a refused body still counts.
      const result =
        i % 2 === 0
          ? await call(server, 'POST', '/api/v1/events', { key: tenant.key, body: eventBody })
          : await call(server, 'PATCH', '/api/v1/events/evt_0000000000000000000000', {
              key: tenant.key,
              body: { name: 'x' },
            });
      expect(result.status, JSON.stringify(result.body)).toBe(i % 2 === 0 ? 201 : 404);
      expect(result.headers.get('x-ratelimit-limit')).toBe('10');
      expect(result.headers.get('x-ratelimit-remaining')).toBe(String(10 - i));
    }
    expectRateLimited(
      await call(server, 'POST', '/api/v1/events', { key: tenant.key, body: eventBody }),
      10,
      'write',
    );
    expectRateLimited(
      await call(server, 'POST', '/api/v1/checkins', { key: tenant.key, body: { code: 'x' } }),
      10,
      'write',
    );

    const after = await call(server, 'GET', '/api/v1/events', { key: tenant.key });
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-limit')).toBe('60');
    expect(after.headers.get('x-ratelimit-remaining')).toBe('58');
    // The five events created above exist; the refused one does not.
    expect(after.body.total).toBe(5);
  });

  it('gives every key its own count, also within one organisation', async () => {
    const first = await createTenant();
    const sibling = await createKey(first.organisationId, ['read']);
    const stranger = await createTenant();
    const results = await parallelReads(61, first.key, server);
    expect(statuses(results)).toEqual({ 200: 60, 429: 1 });
    for (const other of [sibling, stranger]) {
      const result = await call(server, 'GET', '/api/v1/events', { key: other.key });
      expect(result.status).toBe(200);
      expect(result.headers.get('x-ratelimit-remaining')).toBe('59');
    }
  });

  it('carries the window on errors after the limit is checked, and does not count refusals', async () => {
    const tenant = await createTenant(['read']);
    const notFound = await call(server, 'GET', '/api/v1/events/evt_0000000000000000000000', {
      key: tenant.key,
    });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('x-ratelimit-remaining')).toBe('59');
    const invalid = await call(server, 'GET', '/api/v1/events?limit=0', { key: tenant.key });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('x-ratelimit-remaining')).toBe('58');

    // A refused scope reports the window of its class without spending from it.
    const forbidden = await call(server, 'POST', '/api/v1/events', {
      key: tenant.key,
      body: eventBody,
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('x-ratelimit-limit')).toBe('10');
    expect(forbidden.headers.get('x-ratelimit-remaining')).toBe('10');

    const next = await call(server, 'GET', '/api/v1/events', { key: tenant.key });
    expect(next.headers.get('x-ratelimit-remaining')).toBe('57');
  });
});

describe('configured limits', () => {
  const server = useTestServer({ readsPerMinute: 3, writesPerMinute: 2 });

  it('applies the operator’s limits and names them in the message', async () => {
    const tenant = await createTenant();
    const reads = await parallelReads(5, tenant.key, server);
    expect(statuses(reads)).toEqual({ 200: 3, 429: 2 });
    expect(reads.find((r) => r.status === 200)!.headers.get('x-ratelimit-limit')).toBe('3');
    expectRateLimited(
      reads.find((r) => r.status === 429)!,
      3,
      'read',
    );

    const writes = await parallel(4, () =>
      call(server, 'POST', '/api/v1/events', { key: tenant.key, body: eventBody }),
    );
    expect(statuses(writes)).toEqual({ 201: 2, 429: 2 });
    expectRateLimited(
      writes.find((r) => r.status === 429)!,
      2,
      'write',
    );
  });
});

const redisClient = (url: string) => {
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  // Connection errors surface as failed commands; the event itself needs no handling here.
  client.on('error', () => undefined);
  return client;
};

const waitReady = (client: Redis) =>
  client.status === 'ready'
    ? Promise.resolve()
    : new Promise<void>((resolve) => client.once('ready', () => resolve()));

describe.skipIf(!redisUrl)('Redis store shared by two instances (needs REDIS_URL)', () => {
  const clients: Redis[] = [];
  const servers: TestServer[] = [];

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    await Promise.all(clients.splice(0).map((client) => client.quit()));
  });

  async function startInstances(limits: { readsPerMinute: number; writesPerMinute: number }) {
    const keyPrefix = `bxo:test:${randomBytes(6).toString('hex')}`;
    for (let i = 0; i < 2; i++) {
      const redis = redisClient(redisUrl!);
      clients.push(redis);
      await waitReady(redis);
      servers.push(
        await startTestServer({ rateLimits: createRateLimits({ ...limits, redis, keyPrefix }) }),
      );
    }
    return servers as [TestServer, TestServer];
  }

  it('lets exactly 60 of 100 parallel reads through across both instances', async () => {
    const [a, b] = await startInstances({ readsPerMinute: 60, writesPerMinute: 10 });
    const tenant = await createTenant();
    const results = await parallelReads(100, tenant.key, a, b);
    expect(statuses(results)).toEqual({ 200: 60, 429: 40 });
    expectRateLimited(
      results.find((r) => r.status === 429)!,
      60,
      'read',
    );
    const ready = await call(a, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.rate_limit_store).toBe('ok');
  });

  it('shares the write count and the remaining count between instances', async () => {
    const [a, b] = await startInstances({ readsPerMinute: 60, writesPerMinute: 10 });
    const tenant = await createTenant();
    const first = await call(a, 'GET', '/api/v1/events', { key: tenant.key });
    const second = await call(b, 'GET', '/api/v1/events', { key: tenant.key });
    expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
    expect(second.headers.get('x-ratelimit-remaining')).toBe('58');
    const writes = await parallel(12, (i) =>
      call(i % 2 === 0 ? a : b, 'POST', '/api/v1/events', { key: tenant.key, body: eventBody }),
    );
    expect(statuses(writes)).toEqual({ 201: 10, 429: 2 });
  });
});

describe('unreachable Redis store', () => {
  let server: TestServer;
  let redis: Redis;
  beforeAll(async () => {
    redis = redisClient(`redis://127.0.0.1:${await closedPort()}`);
    server = await startTestServer({
      rateLimits: createRateLimits({ readsPerMinute: 60, writesPerMinute: 10, redis }),
      attemptLimits: createAttemptLimits({ redis }),
    });
  });
  afterAll(async () => {
    await server.close();
    redis.disconnect();
  });

  it('answers 503 with Retry-After, quickly', async () => {
    const tenant = await createTenant();
    for (const result of await readAndWriteEvents(server, tenant, eventBody)) {
      expect(result.status, JSON.stringify(result.body)).toBe(503);
      expect(result.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(result.body.error).toBe('Service temporarily unavailable');
      expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Nothing was written while the limit could not be checked.
    const redisUp = await startTestServer();
    try {
      const list = await call(redisUp, 'GET', '/api/v1/events', { key: tenant.key });
      expect(list.body.total).toBe(0);
    } finally {
      await redisUp.close();
    }
  });

  it('answers a missing key with 503 too (failures are counted in the store) and reports not ready', async () => {
    const unauthenticated = await call(server, 'GET', '/api/v1/events');
    expect(unauthenticated.status).toBe(503);
    expect(unauthenticated.headers.get('retry-after')).toMatch(/^\d+$/);
    const ready = await call(server, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.error).toBe('Service temporarily unavailable');
    expect(ready.body.checks).toEqual({ database: 'ok', rate_limit_store: 'unavailable' });
    expect(ready.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
