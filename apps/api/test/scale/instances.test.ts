import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { revokeKey } from '../../src/modules/api-keys/api-key.service';
import { expectOwnPlacesInWindow } from '../assertions';
import { buildEvent, eventInput } from '../fixtures';
import { createKey, createTenant, getTestOrm } from '../setup';
import { countBy, request, startApi, stopAll, type ApiProcess, type Response } from './harness';

const databaseUrl = inject('databaseUrl');
const redisUrl = inject('redisUrl');

const eventBody = eventInput('Two instances');

describe.skipIf(!redisUrl)(
  'two API processes on one database and one Redis (needs REDIS_URL)',
  () => {
    let a: ApiProcess;
    let b: ApiProcess;
    /** Alternates between the two instances, as a load balancer would. */
    const instance = (i: number) => (i % 2 === 0 ? a : b);

    beforeAll(async () => {
      const env = {
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        RATE_LIMIT_READS_PER_MINUTE: '60',
        // The door races below send more than the default 10 writes a minute per key.
        RATE_LIMIT_WRITES_PER_MINUTE: '1000',
      };
      [a, b] = await Promise.all([startApi(env), startApi(env)]);
    });
    afterAll(stopAll);

    it("holds one key's 60 reads a minute across both instances", async () => {
      const tenant = await createTenant(['read']);
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          request(instance(i).baseUrl, 'GET', '/api/v1/events', { key: tenant.key }),
        ),
      );
      expect(countBy(results, (r) => r.status)).toEqual({ 200: 60, 429: 40 });
      // Both instances admitted some, and each admitted request saw its own place in the window.
      expectOwnPlacesInWindow(results, 60);
      for (const refused of results.filter((r) => r.status === 429)) {
        expect(refused.body.error).toMatch(/^Rate limit exceeded: 60 read requests per minute\./);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    });

    it('refuses a revoked key on both instances from the very next request', async () => {
      const tenant = await createTenant(['read']);
      for (const api of [a, b]) {
        expect(
          (await request(api.baseUrl, 'GET', '/api/v1/events', { key: tenant.key })).status,
        ).toBe(200);
      }
      await revokeKey((await getTestOrm()).em.fork(), tenant.apiKeyId);
      for (const api of [a, b, a, b]) {
        const result = await request(api.baseUrl, 'GET', '/api/v1/events', { key: tenant.key });
        expect(result.status).toBe(401);
        expect(result.body.code).toBe('revoked_api_key');
      }
    });

    it('admits a ticket exactly once when two doors on different instances race for it', async () => {
      const tenant = await createTenant(['read', 'checkins:write']);
      // Each door is its own device with its own key, talking to its own instance.
      const doorA = tenant.key;
      const doorB = (await createKey(tenant.organisationId, ['checkins:write'])).key;
      const { tickets } = await buildEvent(tenant.organisationId, { tickets: 5 });

      const races = await Promise.all(
        tickets.map((ticket) =>
          Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              request(instance(i).baseUrl, 'POST', '/api/v1/checkins', {
                key: i % 2 === 0 ? doorA : doorB,
                body: i % 4 < 2 ? { ticket_id: ticket.id } : { code: ticket.code },
              }),
            ),
          ),
        ),
      );
      const orm = await getTestOrm();
      for (const [n, results] of races.entries()) {
        expect(countBy(results, (r) => r.status)).toEqual({ 201: 1, 409: 19 });
        for (const conflict of results.filter((r) => r.status === 409)) {
          expect(conflict.body.error).toMatch(/^ticket already checked in at /);
        }
        const rows = await orm.em
          .fork()
          .getConnection()
          .execute<{ id: string }[]>('select id from checkins where ticket_id = ?', [
            tickets[n]!.id,
          ]);
        expect(rows.map((row) => row.id)).toEqual([
          results.find((r) => r.status === 201)!.body.data.id,
        ]);
      }
    });

    it('replays an idempotent request sent again to the other instance', async () => {
      const tenant = await createTenant(['read', 'write', 'checkins:write']);
      const key = `create-${Date.now()}`;
      const first = await request(a.baseUrl, 'POST', '/api/v1/events', {
        key: tenant.key,
        body: eventBody,
        headers: { 'idempotency-key': key },
      });
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await request(b.baseUrl, 'POST', '/api/v1/events', {
        key: tenant.key,
        body: eventBody,
        headers: { 'idempotency-key': key },
      });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      const list = await request(b.baseUrl, 'GET', '/api/v1/events', { key: tenant.key });
      expect(list.body.total).toBe(1);

      // The same scan retried in parallel through both instances: one check-in, one real answer.
      const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
      const scans = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          request(instance(i).baseUrl, 'POST', '/api/v1/checkins', {
            key: tenant.key,
            body: { ticket_id: tickets[0]!.id, gate: 'north' },
            headers: { 'idempotency-key': `scan-${tickets[0]!.id}` },
          }),
        ),
      );
      const executed = scans.filter(
        (r) => r.status === 201 && r.headers.get('idempotent-replayed') === null,
      );
      expect(executed).toHaveLength(1);
      for (const scan of scans) {
        // Either the stored answer, or "still running, retry" while the first was in progress.
        if (scan.status === 201) expect(scan.body).toEqual(executed[0]!.body);
        else expect(scan.body.code, JSON.stringify(scan.body)).toBe('idempotency_in_flight');
      }
      // After the first finished, a retry on either instance replays it.
      for (const api of [a, b]) {
        const retry: Response = await request(api.baseUrl, 'POST', '/api/v1/checkins', {
          key: tenant.key,
          body: { ticket_id: tickets[0]!.id, gate: 'north' },
          headers: { 'idempotency-key': `scan-${tickets[0]!.id}` },
        });
        expect(retry.status).toBe(201);
        expect(retry.headers.get('idempotent-replayed')).toBe('true');
        expect(retry.body).toEqual(executed[0]!.body);
      }
      const rows = await (
        await getTestOrm()
      ).em
        .fork()
        .getConnection()
        .execute('select id from checkins where ticket_id = ?', [tickets[0]!.id]);
      expect(rows).toHaveLength(1);
    });
  },
);
