import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTenant } from '../setup';
import {
  freePort,
  request,
  redisServerAvailable,
  startApi,
  startRedisServer,
  stopAll,
  until,
  type ApiProcess,
  type Response,
  type Spawned,
} from './harness';

const databaseUrl = inject('databaseUrl');
const redisUrl = inject('redisUrl');
const canRun = Boolean(redisUrl) && redisServerAvailable();

function expectUnavailable(result: Response) {
  expect(result.status, JSON.stringify(result.body)).toBe(503);
  expect(result.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(result.body.error).toBe('Service temporarily unavailable');
  expect(result.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
}

// A Redis of its own (a child process on a free port), so stopping it disturbs no other test.
describe.skipIf(!canRun)(
  'rate-limit store outage: the API answers 503 quickly and recovers by itself (needs REDIS_URL and redis-server)',
  () => {
    let redisPort: number;
    let redis: Spawned;
    let api: ApiProcess;
    let key: string;

    beforeAll(async () => {
      redisPort = await freePort();
      redis = await startRedisServer(redisPort);
      api = await startApi({
        DATABASE_URL: databaseUrl,
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      });
      key = (await createTenant()).key;
    });
    afterAll(stopAll);

    const probes = () =>
      Promise.all([
        request(api.baseUrl, 'GET', '/api/v1/events', { key }),
        request(api.baseUrl, 'GET', '/api/v1/events', { key }),
        request(api.baseUrl, 'POST', '/api/v1/checkins', { key, body: { code: 'no-such-code' } }),
      ]);

    it('answers 503 with Retry-After while Redis is down, then recovers when it is back', async () => {
      for (const result of await probes()) expect([200, 404]).toContain(result.status);

      const stopped = await redis.stop('SIGKILL');
      expect(stopped.signal).toBe('SIGKILL');

      for (let round = 0; round < 3; round++) {
        for (const result of await probes()) {
          expectUnavailable(result);
          expect(result.ms).toBeLessThan(3_000);
        }
      }
      const ready = await request(api.baseUrl, 'GET', '/readyz');
      expectUnavailable(ready);
      expect(ready.ms).toBeLessThan(3_000);
      expect(ready.body.checks).toEqual({ database: 'ok', rate_limit_store: 'unavailable' });
      // Liveness does not need the store. A missing key does: failed authentications are counted.
      expect((await request(api.baseUrl, 'GET', '/healthz')).status).toBe(200);
      expectUnavailable(await request(api.baseUrl, 'GET', '/api/v1/events'));

      redis = await startRedisServer(redisPort);
      const recovered = performance.now();
      await until(
        'the API to serve requests again',
        async () => (await request(api.baseUrl, 'GET', '/api/v1/events', { key })).status === 200,
        { timeoutMs: 10_000 },
      );
      expect(performance.now() - recovered).toBeLessThan(5_000);
      for (const result of await probes()) expect([200, 404]).toContain(result.status);
      expect((await request(api.baseUrl, 'GET', '/readyz')).status).toBe(200);
      expect(api.hasExited()).toBe(false);
    });

    it('answers 503 quickly while Redis accepts connections but does not answer', async () => {
      expect((await request(api.baseUrl, 'GET', '/api/v1/events', { key })).status).toBe(200);
      redis.child.kill('SIGSTOP');
      try {
        for (const result of await probes()) {
          expectUnavailable(result);
          expect(result.ms).toBeLessThan(3_000);
        }
        expectUnavailable(await request(api.baseUrl, 'GET', '/readyz'));
      } finally {
        redis.child.kill('SIGCONT');
      }
      await until(
        'the API to serve requests again',
        async () => (await request(api.baseUrl, 'GET', '/api/v1/events', { key })).status === 200,
        { timeoutMs: 10_000 },
      );
    });

    it('sign-up, sign-in and failed API authentications answer 503 within about a second while Redis is frozen', async () => {
      const email = `frozen-${Date.now()}@example.com`;
      const password = 'a long passphrase';
      const signUp = (address: string) =>
        request(api.baseUrl, 'POST', '/dashboard/api/signup', {
          body: { organisation_name: 'Frozen Hall', email: address, password },
        });
      const signIn = () =>
        request(api.baseUrl, 'POST', '/dashboard/api/login', { body: { email, password } });
      const unknownKey = () =>
        request(api.baseUrl, 'GET', '/api/v1/events', { key: `bxo_live_${'x'.repeat(40)}` });
      expect((await signUp(email)).status).toBe(201);

      redis.child.kill('SIGSTOP');
      try {
        const results = [
          await signUp(`second-${email}`),
          await signIn(),
          await unknownKey(),
          await request(api.baseUrl, 'GET', '/api/v1/events'),
        ];
        for (const result of results) {
          expectUnavailable(result);
          // The bound is 1 s per Redis call; a frozen store once held a sign-in for 15 s.
          expect(result.ms).toBeLessThan(2_000);
        }
      } finally {
        redis.child.kill('SIGCONT');
      }

      // Back without a restart.
      await until('sign-in to work again', async () => (await signIn()).status === 200, {
        timeoutMs: 10_000,
      });
      expect((await signUp(`third-${email}`)).status).toBe(201);
      expect((await unknownKey()).status).toBe(401);
      expect(api.hasExited()).toBe(false);
    });
  },
);
