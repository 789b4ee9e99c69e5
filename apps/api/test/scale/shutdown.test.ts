import http from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../../src/db/orm';
import { createEvent } from '../../src/modules/events/event.service';
import {
  createTenantIn,
  request,
  startApi,
  startMigratedPostgres,
  stopAll,
  stopScratchSuite,
  tryConnect,
  until,
  within,
  type ApiProcess,
  type Response,
  type ScratchPostgres,
  type Tenant,
} from './harness';

const EVENTS = 150;
const IN_FLIGHT = 24;
const GRACE_MS = 10_000;

// Its own PostgreSQL (embedded): the test locks a table and holds many connections, which must
// hold up no other test.
describe('SIGTERM under load', () => {
  let db: ScratchPostgres;
  let orm: Orm;
  let tenant: Tenant;
  let api: ApiProcess;
  const clients: pg.Client[] = [];

  beforeAll(async () => {
    ({ db, orm } = await startMigratedPostgres());
    tenant = await createTenantIn(orm, ['read']);
    for (let i = 0; i < EVENTS; i++) {
      await createEvent(
        { em: orm.em.fork(), organisationId: tenant.organisationId, livemode: true },
        {
          name: `Listed ${i}`,
          timezone: 'Europe/London',
          starts_at: '2027-07-01T18:00:00Z',
          ends_at: '2027-07-01T23:00:00Z',
          currency: 'GBP',
        },
      );
    }
    api = await startApi({
      DATABASE_URL: db.url,
      // Room for every held request (a list runs its page and count queries side by side), so
      // none waits for a pooled connection.
      DB_POOL_MAX: String(2 * IN_FLIGHT + 10),
      RATE_LIMIT_READS_PER_MINUTE: '100000',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    });
  });
  afterAll(async () => {
    await stopAll();
    await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
    // Unset where beforeAll failed before it got to them.
    await stopScratchSuite(orm, db);
  });

  const connectClient = async () => {
    const client = new pg.Client({ connectionString: db.url });
    clients.push(client);
    await client.connect();
    return client;
  };

  it('finishes the requests in flight, refuses new connections and exits 0', async () => {
    // The list requests are held inside the database (by a transaction locking the table they
    // read) until the signal has been handled: they are certainly in flight when it arrives.
    const locker = await connectClient();
    const monitor = await connectClient();
    await locker.query('begin');
    await locker.query('lock table events in access exclusive mode');

    let settled = 0;
    const inFlight = Array.from({ length: IN_FLIGHT }, (_, i) =>
      request(api.baseUrl, 'GET', `/api/v1/events?limit=100&page=${(i % 2) + 1}`, {
        key: tenant.key,
        timeoutMs: 30_000,
      })
        .then(
          (response): Response | Error => response,
          (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
        )
        .finally(() => settled++),
    );

    // Each request runs at most one query of each kind (the page and the count); once either
    // kind has IN_FLIGHT waiters, every request is inside the server.
    await until('every request to wait on the lock', async () => {
      if (settled > 0) throw new Error('a held request was answered before the signal');
      const { rows } = await monitor.query<{ counting: number; listing: number }>(
        `select count(*) filter (where query ilike 'select count(%')::int as counting,
                count(*) filter (where query not ilike 'select count(%')::int as listing
           from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`,
      );
      return rows[0]!.counting === IN_FLIGHT || rows[0]!.listing === IN_FLIGHT;
    });

    const signalled = performance.now();
    api.child.kill('SIGTERM');
    await until(
      'the listening socket to close',
      async () => (await tryConnect(api.port)) === 'ECONNREFUSED',
      { timeoutMs: 5_000, intervalMs: 10 },
    );
    // From then on every new connection is refused, while the requests in flight wait on.
    for (let i = 0; i < 3; i++) expect(await tryConnect(api.port)).toBe('ECONNREFUSED');
    const late = await new Promise<string>((resolve) => {
      const req = http.get(`${api.baseUrl}/api/v1/events`, { agent: false }, (res) => {
        res.resume();
        resolve(`answered ${res.statusCode}`);
      });
      req.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    expect(late).toBe('ECONNREFUSED');
    expect(settled).toBe(0);
    expect(api.hasExited()).toBe(false);

    await locker.query('commit');
    const results = await Promise.all(inFlight);
    for (const [i, result] of results.entries()) {
      if (result instanceof Error) {
        throw new Error(`request ${i} failed\n${api.output()}`, { cause: result });
      }
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      expect(result.body.total).toBe(EVENTS);
      expect(result.body.data).toHaveLength(i % 2 === 0 ? 100 : EVENTS - 100);
    }

    const exit = await within('the API to exit', api.exited, GRACE_MS + 5_000);
    expect(exit, api.output()).toEqual({ code: 0, signal: null });
    expect(performance.now() - signalled).toBeLessThan(GRACE_MS);
  }, 60_000);
});
