import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildEvent } from './fixtures';
import { request, startApi, stopAll, until, type ApiProcess } from './scale/harness';
import { createTenant, getTestOrm, type TestTenant } from './setup';

const databaseUrl = inject('databaseUrl');

const env = (concurrency: number) => ({
  DATABASE_URL: databaseUrl,
  RATE_LIMIT_READS_PER_MINUTE: '1000000',
  RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
  EXPORT_CONCURRENCY: String(concurrency),
});

/** The export, once its status is one of `statuses` (read from `api`). */
const once = (
  api: ApiProcess,
  tenant: TestTenant,
  id: string,
  statuses: string[],
  timeoutMs: number,
) =>
  until(
    `export ${id} to be ${statuses.join(' or ')}`,
    async () => {
      const got = await request(api.baseUrl, 'GET', `/api/v1/exports/${id}`, { key: tenant.key });
      return statuses.includes(got.body.data.status) ? got.body.data : undefined;
    },
    { timeoutMs, intervalMs: 20 },
  );

const fileOf = async (api: ApiProcess, tenant: TestTenant, id: string): Promise<string> => {
  const response = await fetch(`${api.baseUrl}/api/v1/exports/${id}/file`, {
    headers: { authorization: `Bearer ${tenant.key}` },
  });
  expect(response.status).toBe(200);
  return response.text();
};

describe('exports across server processes on one database', () => {
  let front: ApiProcess;
  let maker: ApiProcess;

  beforeAll(async () => {
    // One process takes requests and makes no exports; the other makes them.
    [front, maker] = await Promise.all([startApi(env(0)), startApi(env(1))]);
  }, 90_000);
  afterAll(stopAll);

  it('is asked of one process, made by another, and served by either', async () => {
    const tenant = await createTenant(['read']);
    await buildEvent(tenant.organisationId, { tickets: 25 });
    const created = await request(front.baseUrl, 'POST', '/api/v1/exports', {
      key: tenant.key,
      body: { resource: 'attendees', format: 'csv' },
    });
    expect(created.status).toBe(202);
    const done = await once(front, tenant, created.body.data.id, ['ready', 'failed'], 30_000);
    expect(done.status).toBe('ready');
    expect(done.row_count).toBe(25);
    const [fromFront, fromMaker] = await Promise.all([
      fileOf(front, tenant, done.id),
      fileOf(maker, tenant, done.id),
    ]);
    expect(fromFront).toBe(fromMaker);
    expect(fromFront.split('\r\n')).toHaveLength(25 + 2);
  });

  it('is made again elsewhere when the process making it dies', async () => {
    const tenant = await createTenant(['read']);
    const orm = await getTestOrm();
    // A list long enough to be caught while it is made.
    await orm.em.getConnection().execute(
      `insert into events (id, organisation_id, name, timezone, starts_at, ends_at, currency,
                           status, created_at, updated_at)
       select 'evt_' || lpad(n::text, 24, '0'), ?, 'Event ' || n, 'UTC', '2027-01-01T18:00:00Z',
              '2027-01-01T22:00:00Z', 'EUR', 'draft', now(), now()
         from generate_series(1, 60000) as n`,
      [tenant.organisationId],
    );
    const created = await request(front.baseUrl, 'POST', '/api/v1/exports', {
      key: tenant.key,
      body: { resource: 'events' },
    });
    const id = created.body.data.id as string;
    await once(front, tenant, id, ['running'], 30_000);
    await maker.stop('SIGKILL');
    expect(
      (await request(front.baseUrl, 'GET', `/api/v1/exports/${id}`, { key: tenant.key })).body.data
        .status,
    ).toBe('running');

    // Another process takes the job once the dead one's heartbeat is missed, and starts over.
    maker = await startApi(env(1));
    const done = await once(front, tenant, id, ['ready', 'failed'], 90_000);
    expect(done.status).toBe('ready');
    expect(done.row_count).toBe(60_000);
    const lines = (await fileOf(front, tenant, id)).split('\n').filter(Boolean);
    expect(lines).toHaveLength(60_000);
    expect(new Set(lines.map((line) => (JSON.parse(line) as { id: string }).id)).size).toBe(60_000);
    const runs = await orm.em
      .getConnection()
      .execute<{ run_id: string }[]>(
        'select distinct run_id from export_chunks where export_id = ?',
        [id],
      );
    expect(runs).toHaveLength(1);
  }, 150_000);
});
