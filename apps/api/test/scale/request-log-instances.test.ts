import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTenant, getTestOrm } from '../setup';
import { request, startApi, stopAll, UNLIMITED_RATES } from './harness';

const databaseUrl = inject('databaseUrl');

// Two server processes write one request_logs table: every request of each is recorded once, with
// an id of its own, and what a process still held when it was told to stop is written before it
// exits.
describe('the request log of two API processes on one database', () => {
  afterAll(stopAll);

  it('records every request of both, and writes what is waiting when they stop', async () => {
    const env = { DATABASE_URL: databaseUrl, ...UNLIMITED_RATES };
    const [a, b] = await Promise.all([startApi(env), startApi(env)]);
    const tenant = await createTenant();
    const sent: string[] = [];
    // Both at once, so their records interleave in time.
    await Promise.all(
      [a, b].map(async (api, n) => {
        for (let i = 0; i < 40; i += 1) {
          const path = i % 4 === 3 ? '/api/v1/events/evt_missing' : `/api/v1/events?limit=${n + 1}`;
          const answer = await request(api.baseUrl, 'GET', path, { key: tenant.key });
          expect([200, 404]).toContain(answer.status);
          sent.push(answer.headers.get('x-request-id')!);
        }
      }),
    );
    // Stopped at once: the last records are still in the processes' buffers (written every second).
    const exits = await Promise.all([a.stop('SIGTERM'), b.stop('SIGTERM')]);
    expect(exits).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
    const orm = await getTestOrm();
    const rows = await orm.em
      .fork()
      .execute<{ id: string; request_id: string; route: string; path: string }[]>(
        `select id, request_id, route, path from request_logs where organisation_id = ?`,
        [tenant.organisationId],
      );
    expect(rows.map((r) => r.request_id).sort()).toEqual([...sent].sort());
    expect(new Set(rows.map((r) => r.id)).size).toBe(80);
    expect(rows.filter((r) => r.path === '/events?limit=1')).toHaveLength(30);
    expect(rows.filter((r) => r.path === '/events?limit=2')).toHaveLength(30);
    expect(rows.filter((r) => r.route === '/events/:id')).toHaveLength(20);
  });
});
