import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportJobs } from '../src/modules/exports/export-jobs';
import { sweepExports } from '../src/modules/exports/export.service';
import { insertChunk, startRun } from '../src/modules/exports/export.repository';
import { runExport } from '../src/modules/exports/export-runner';
import { parseCsv } from './csv';
import { addOrder, buildEvent, cancelFixtureOrder } from './fixtures';
import {
  call,
  createTenant,
  createTestKey,
  getTestOrm,
  startExportJobs,
  startTestServer,
  type CallResult,
  type TestServer,
  type TestTenant,
} from './setup';

let producer: ExportJobs;
let worker: ExportJobs;
let server: TestServer;

beforeAll(async () => {
  // The server only adds jobs; the worker, a replica of its own, makes the exports. Small chunks,
  // so that a file of a few hundred rows has several.
  producer = await startExportJobs(0);
  worker = await startExportJobs(1, 16 * 1024);
  server = await startTestServer({
    exportQueue: producer,
    readsPerMinute: 100_000,
    writesPerMinute: 50_000,
  });
}, 60_000);

afterAll(async () => {
  await server.close();
  await Promise.all([producer.stop(5_000), worker.stop(5_000)]);
});

/**
 * Runs `use` with a server whose queue nobody works, so that its exports stay pending: the worker
 * is stopped meanwhile, and started again after.
 */
async function withoutWorker<T>(use: (idle: TestServer) => Promise<T>): Promise<T> {
  const idle = await startTestServer({ exportQueue: producer });
  await worker.stop(5_000);
  try {
    return await use(idle);
  } finally {
    await idle.close();
    worker = await startExportJobs(1, 16 * 1024);
  }
}

/**
 * An export of the tenant's tickets, asked for while nobody works the queue (`withoutWorker`):
 * `whilePending` runs with that server and the export's id, before the worker starts again.
 */
async function pendingTicketsExport(
  tenant: Pick<TestTenant, 'key'>,
  whilePending: (idle: TestServer, id: string) => Promise<void>,
): Promise<string> {
  return withoutWorker(async (idle) => {
    const created = await call(idle, 'POST', '/api/v1/exports', {
      key: tenant.key,
      body: { resource: 'tickets' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const id = created.body.data.id as string;
    await whilePending(idle, id);
    return id;
  });
}

const get = (tenant: Pick<TestTenant, 'key'>, path: string) =>
  call(server, 'GET', path, { key: tenant.key });
const post = (tenant: Pick<TestTenant, 'key'>, body: unknown, headers?: Record<string, string>) =>
  call(server, 'POST', '/api/v1/exports', { key: tenant.key, body, headers });

/** Polls the export until it is done (ready or failed). */
async function finished(tenant: Pick<TestTenant, 'key'>, id: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { body } = await get(tenant, `/api/v1/exports/${id}`);
    if (body.data.status === 'ready' || body.data.status === 'failed') return body.data;
    if (Date.now() > deadline) throw new Error(`export ${id} still ${body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function exportOf(tenant: Pick<TestTenant, 'key'>, body: unknown): Promise<any> {
  const created = await post(tenant, body);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return finished(tenant, created.body.data.id);
}

interface Download {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * The file over a raw connection (fetch would decode gzip): its bytes as sent. `cutAfter` drops
 * the connection once that many bytes came, as a broken download.
 */
function download(
  tenant: Pick<TestTenant, 'key'>,
  id: string,
  headers: Record<string, string> = {},
  cutAfter?: number,
): Promise<Download> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${server.baseUrl}/api/v1/exports/${id}/file`,
      { headers: { authorization: `Bearer ${tenant.key}`, ...headers } },
      (res) => {
        const parts: Buffer[] = [];
        let received = 0;
        res.on('data', (part: Buffer) => {
          parts.push(part);
          received += part.length;
          if (cutAfter !== undefined && received >= cutAfter) {
            req.destroy();
            const body = Buffer.concat(parts).subarray(0, cutAfter);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          }
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(parts),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', (error) => (cutAfter === undefined ? reject(error) : undefined));
    req.end();
  });
}

/** Every item of a list, walked with cursors, 100 at a time. */
async function walk(tenant: Pick<TestTenant, 'key'>, path: string): Promise<any[]> {
  const items: any[] = [];
  const join = path.includes('?') ? '&' : '?';
  let page: CallResult = await get(tenant, `${path}${join}limit=100`);
  for (;;) {
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    items.push(...page.body.data);
    if (page.body.next_cursor === null) return items;
    page = await get(tenant, `${path}${join}limit=100&cursor=${page.body.next_cursor}`);
  }
}

const lines = (file: Buffer): unknown[] =>
  file
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);

const countExports = async (organisationId: string): Promise<number> => {
  const orm = await getTestOrm();
  const [row] = await orm.em
    .getConnection()
    .execute<{ count: string }[]>(`select count(*) from exports where organisation_id = ?`, [
      organisationId,
    ]);
  return Number(row?.count);
};

describe('an export', () => {
  let tenant: TestTenant;

  beforeAll(async () => {
    tenant = await createTenant(['read']);
    const fixture = await buildEvent(tenant.organisationId, { tickets: 40 });
    for (let i = 0; i < 4; i++)
      await addOrder(tenant.organisationId, fixture.tier, { tickets: 30 });
    const voided = await addOrder(tenant.organisationId, fixture.tier, { tickets: 5 });
    await cancelFixtureOrder(tenant.organisationId, voided.order.id);
  }, 60_000);

  it('copies the whole list into NDJSON, each line the object as the list shows it', async () => {
    const created = await post(tenant, { resource: 'tickets' });
    expect(created.status).toBe(202);
    // A read scope suffices, and the request counts as a write.
    expect(created.headers.get('x-ratelimit-limit')).toBe('50000');
    expect(created.body.data).toMatchObject({
      resource: 'tickets',
      filters: {},
      format: 'ndjson',
      status: 'pending',
      row_count: null,
      livemode: true,
    });
    expect(created.body.data.id).toMatch(/^exp_[0-9A-Za-z]{24}$/);
    const done = await finished(tenant, created.body.data.id);
    expect(done.status).toBe('ready');

    const listed = await walk(tenant, '/api/v1/tickets');
    expect(listed).toHaveLength(165);
    const file = await download(tenant, done.id);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/x-ndjson');
    expect(file.headers['content-disposition']).toBe(`attachment; filename="${done.id}.ndjson"`);
    expect(file.headers['accept-ranges']).toBe('bytes');
    expect(file.headers['content-encoding']).toBeUndefined();
    expect(lines(file.body)).toEqual(listed);
    expect(done.row_count).toBe(165);
    expect(done.size_bytes).toBe(file.body.length);
    // Several chunks: the file is bigger than the worker's 16 KiB chunks.
    expect(file.body.length).toBeGreaterThan(3 * 16 * 1024);
    expect(Date.parse(done.expires_at) - Date.parse(done.completed_at)).toBe(24 * 3600_000);
  });

  it("takes the list's filters, with its own order", async () => {
    const done = await exportOf(tenant, {
      resource: 'tickets',
      filters: { status: 'void' },
    });
    expect(done.filters).toEqual({ status: ['void'] });
    const file = await download(tenant, done.id);
    const listed = await walk(tenant, '/api/v1/tickets?status=void');
    expect(listed).toHaveLength(5);
    expect(lines(file.body)).toEqual(listed);

    const since = listed[2].updated_at as string;
    const changed = await exportOf(tenant, {
      resource: 'attendees',
      filters: { updated_since: since, checked_in: false },
    });
    expect(changed.filters).toEqual({ updated_since: since, checked_in: false });
    expect(lines((await download(tenant, changed.id)).body)).toEqual(
      await walk(tenant, `/api/v1/attendees?updated_since=${since}&checked_in=false`),
    );
  });

  it('writes CSV: a header of the fields in order, one row per object, arrays as JSON', async () => {
    const done = await exportOf(tenant, { resource: 'attendees', format: 'csv' });
    const file = await download(tenant, done.id);
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(file.headers['content-disposition']).toBe(`attachment; filename="${done.id}.csv"`);
    const [header, ...rows] = parseCsv(file.body.toString('utf8'));
    const listed = await walk(tenant, '/api/v1/attendees');
    expect(header).toEqual(Object.keys(listed[0]));
    expect(rows).toHaveLength(listed.length);
    const cellOf = (value: unknown): string =>
      value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
    expect(rows).toEqual(listed.map((item) => header!.map((name) => cellOf(item[name]))));
    // The answers are a JSON array in one cell, quoted for its commas and quotes.
    expect(file.body.toString('utf8')).toContain(
      ',"[{""answer"":""None"",""question"":""Dietary requirements""}]",',
    );
  });

  it('sends the gzip encoding when accepted: the stored members are one gzip stream', async () => {
    const done = await exportOf(tenant, { resource: 'orders' });
    const identity = await download(tenant, done.id, { 'accept-encoding': 'identity' });
    const gzip = await download(tenant, done.id, { 'accept-encoding': 'br;q=1, gzip;q=0.8' });
    expect(gzip.status).toBe(200);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toBe('Accept-Encoding');
    expect(Number(gzip.headers['content-length'])).toBe(gzip.body.length);
    expect(gunzipSync(gzip.body)).toEqual(identity.body);
    expect(gzip.headers.etag).not.toBe(identity.headers.etag);
    expect(lines(identity.body)).toEqual(await walk(tenant, '/api/v1/orders'));
    // gzip;q=0 refuses it.
    const refused = await download(tenant, done.id, { 'accept-encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body).toEqual(identity.body);
  });

  it('resumes a broken download with Range and If-Range, in either encoding', async () => {
    const done = await exportOf(tenant, { resource: 'tickets' });
    for (const encoding of ['identity', 'gzip']) {
      const whole = await download(tenant, done.id, { 'accept-encoding': encoding });
      const etag = whole.headers.etag as string;
      expect(etag).toMatch(/^"exp_.+"$/);
      const broken = await download(
        tenant,
        done.id,
        { 'accept-encoding': encoding },
        Math.floor(whole.body.length / 2),
      );
      expect(broken.body.length).toBeLessThan(whole.body.length);
      const rest = await download(tenant, done.id, {
        'accept-encoding': encoding,
        range: `bytes=${broken.body.length}-`,
        'if-range': etag,
      });
      expect(rest.status, encoding).toBe(206);
      expect(rest.headers['content-range']).toBe(
        `bytes ${broken.body.length}-${whole.body.length - 1}/${whole.body.length}`,
      );
      expect(Buffer.concat([broken.body, rest.body])).toEqual(whole.body);

      // A closed range in the middle, spanning chunks, and the last bytes.
      const middle = await download(tenant, done.id, {
        'accept-encoding': encoding,
        range: 'bytes=1000-40000',
      });
      expect(middle.status).toBe(206);
      expect(middle.body).toEqual(whole.body.subarray(1000, 40001));
      const tail = await download(tenant, done.id, {
        'accept-encoding': encoding,
        range: 'bytes=-10',
      });
      expect(tail.body).toEqual(whole.body.subarray(whole.body.length - 10));

      // Another representation's tag: the whole file again, not a range of the wrong bytes.
      const stale = await download(tenant, done.id, {
        'accept-encoding': encoding,
        range: 'bytes=10-',
        'if-range': '"exp_other"',
      });
      expect(stale.status).toBe(200);
      expect(stale.body).toEqual(whole.body);

      const past = await download(tenant, done.id, {
        'accept-encoding': encoding,
        range: `bytes=${whole.body.length}-`,
      });
      expect(past.status).toBe(416);
      expect(past.headers['content-range']).toBe(`bytes */${whole.body.length}`);
      expect(JSON.parse(past.body.toString('utf8'))).toMatchObject({
        code: 'range_not_satisfiable',
      });
    }
  });

  it('is kept per key under an Idempotency-Key: a retry answers the same export', async () => {
    const before = await countExports(tenant.organisationId);
    const key = `export-${Date.now()}`;
    const first = await post(tenant, { resource: 'events' }, { 'idempotency-key': key });
    const again = await post(tenant, { resource: 'events' }, { 'idempotency-key': key });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(await countExports(tenant.organisationId)).toBe(before + 1);
    await finished(tenant, first.body.data.id);
  });
});

describe('a refused export', () => {
  it('is a 400 naming the field, and makes nothing', async () => {
    const tenant = await createTenant(['read']);
    const cases: [unknown, string, RegExp][] = [
      [{ resource: 'refunds' }, 'resource', /resource must be one of: events, tiers/],
      [{}, 'resource', /resource/],
      [{ resource: 'orders', filters: { code: 'x' } }, 'filters', /unknown field: filters\.code/],
      [{ resource: 'tickets', filters: { limit: 10 } }, 'filters', /filters\.limit/],
      [{ resource: 'tickets', filters: { cursor: 'abc' } }, 'filters', /filters\.cursor/],
      [{ resource: 'events', filters: { starting_after: 'evt_x' } }, 'filters', /starting_after/],
      [
        { resource: 'tickets', filters: { status: 'used' } },
        'filters.status',
        /^status must be one or more of: valid, checked_in, void/,
      ],
      [
        { resource: 'events', filters: { updated_since: 'yesterday' } },
        'filters.updated_since',
        /updated_since must be an ISO-8601 timestamp/,
      ],
      [{ resource: 'events', format: 'xlsx' }, 'format', /format must be one of: ndjson, csv/],
    ];
    for (const [body, field, message] of cases) {
      const refused = await post(tenant, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.code).toBe('validation_failed');
      expect(refused.body.details[0].field, JSON.stringify(body)).toBe(field);
      expect(refused.body.error, JSON.stringify(body)).toMatch(message);
    }
    expect(await countExports(tenant.organisationId)).toBe(0);
  });

  it('is a 409 past three exports not yet done, for that organisation only', async () => {
    await withoutWorker(async (idle) => {
      const tenant = await createTenant(['read']);
      const other = await createTenant(['read']);
      const send = (who: TestTenant) =>
        call(idle, 'POST', '/api/v1/exports', { key: who.key, body: { resource: 'events' } });
      const answers = await Promise.all([send(tenant), send(tenant), send(tenant), send(tenant)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([202, 202, 202, 409]);
      const refused = answers.find((answer) => answer.status === 409)!;
      expect(refused.body.code).toBe('too_many_exports');
      expect(await countExports(tenant.organisationId)).toBe(3);
      expect((await send(other)).status).toBe(202);
    });
  });
});

describe('the file of an export not ready, or removed', () => {
  it('is a 409 while it is made, then a 410 once the sweep removed it', async () => {
    const tenant = await createTenant(['read']);
    await buildEvent(tenant.organisationId, { tickets: 3 });
    // Not made yet: its job is queued, no worker has run it.
    const id = await pendingTicketsExport(tenant, async (idle, pending) => {
      const early = await call(idle, 'GET', `/api/v1/exports/${pending}/file`, { key: tenant.key });
      expect(early.status).toBe(409);
      expect(early.body.code).toBe('export_not_ready');
    });
    const done = await finished(tenant, id);
    expect((await download(tenant, id)).status).toBe(200);

    const orm = await getTestOrm();
    const chunks = async () =>
      Number(
        (
          await orm.em
            .getConnection()
            .execute<{ count: string }[]>(
              'select count(*) from export_chunks where export_id = ?',
              [id],
            )
        )[0]?.count,
      );
    expect(await chunks()).toBeGreaterThan(0);
    // A sweep before the retention ends keeps it; one after removes the file.
    await sweepExports(
      orm.em,
      { stalledAfterMs: 3600_000 },
      new Date(Date.parse(done.expires_at) - 1000),
    );
    expect(await chunks()).toBeGreaterThan(0);
    const swept = await sweepExports(
      orm.em,
      { stalledAfterMs: 3600_000 },
      new Date(Date.parse(done.expires_at) + 1000),
    );
    expect(swept.expired).toBeGreaterThanOrEqual(1);
    expect(await chunks()).toBe(0);
    const gone = await download(tenant, id);
    expect(gone.status).toBe(410);
    expect(JSON.parse(gone.body.toString('utf8'))).toMatchObject({ code: 'export_expired' });
    expect((await get(tenant, `/api/v1/exports/${id}`)).body.data.status).toBe('expired');
  });
});

describe('a run made again', () => {
  it('starts from scratch: what an earlier run left is not part of the file', async () => {
    const tenant = await createTenant(['read']);
    await buildEvent(tenant.organisationId, { tickets: 2 });
    const orm = await getTestOrm();
    const id = await pendingTicketsExport(tenant, async (idle, made) => {
      // A run that wrote a chunk and died: the export stays `running` under its run.
      expect(await startRun(orm.em, made, 'deadrun', new Date())).toBeDefined();
      await insertChunk(orm.em, {
        exportId: made,
        runId: 'deadrun',
        seq: 0,
        rawOffset: 0,
        rawSize: 7,
        gzipOffset: 0,
        data: Buffer.from('garbage'),
      });
      expect(
        (await call(idle, 'GET', `/api/v1/exports/${made}`, { key: tenant.key })).body.data.status,
      ).toBe('running');
      // The job, taken again, makes the whole file afresh.
      expect(await runExport(orm.em, made, { retentionMs: 3600_000 })).toBe('ready');
      expect(await runExport(orm.em, made, { retentionMs: 3600_000 })).toBe('skipped');
    });
    const file = await download(tenant, id);
    expect(lines(file.body)).toEqual(await walk(tenant, '/api/v1/tickets'));
    const runs = await orm.em
      .getConnection()
      .execute<{ run_id: string }[]>(
        'select distinct run_id from export_chunks where export_id = ?',
        [id],
      );
    expect(runs.map((run) => run.run_id)).not.toContain('deadrun');
  });
});

describe('test mode', () => {
  it("keeps a live key's exports from its test key, and the other way round", async () => {
    const live = await createTenant(['read']);
    await buildEvent(live.organisationId, { tickets: 2 });
    const test = await createTestKey(live.organisationId, ['read']);
    const liveExport = await exportOf(live, { resource: 'tickets' });
    const testExport = await exportOf(test, { resource: 'tickets' });
    expect(liveExport.livemode).toBe(true);
    expect(testExport.livemode).toBe(false);

    expect((await get(test, `/api/v1/exports/${liveExport.id}`)).status).toBe(404);
    expect((await download(test, liveExport.id)).status).toBe(404);
    expect((await get(live, `/api/v1/exports/${testExport.id}`)).status).toBe(404);
    expect((await get(test, '/api/v1/exports')).body.data.map((e: any) => e.id)).toEqual([
      testExport.id,
    ]);
    // The test export holds the test environment's sample tickets, rendered as test data.
    const rows = lines((await download(test, testExport.id)).body) as any[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.livemode === false)).toBe(true);
    expect(rows).toEqual(await walk(test, '/api/v1/tickets'));
  });
});

describe('an export under concurrent writes, then a sync from its checkpoint', () => {
  it('loses nothing: the file and the updated_since walk add up to the database', async () => {
    const tenant = await createTenant(['read']);
    const fixture = await buildEvent(tenant.organisationId, { tickets: 50 });
    const orders = [fixture.order.id];
    for (let i = 0; i < 10; i++) {
      orders.push((await addOrder(tenant.organisationId, fixture.tier, { tickets: 40 })).order.id);
    }
    // Writers: new orders (new tickets) and cancellations (tickets changed), until told to stop.
    const state = { writing: true };
    let writes = 0;
    const writer = (async () => {
      while (state.writing) {
        const added = await addOrder(tenant.organisationId, fixture.tier, { tickets: 2 });
        const victim = orders.shift();
        if (victim) await cancelFixtureOrder(tenant.organisationId, victim);
        orders.push(added.order.id);
        writes += 1;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const done = await exportOf(tenant, { resource: 'tickets' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    state.writing = false;
    await writer;
    expect(writes).toBeGreaterThan(2);

    const byId = new Map<string, any>();
    for (const row of lines((await download(tenant, done.id)).body) as any[]) byId.set(row.id, row);
    expect(byId.size).toBe(done.row_count);
    for (const row of await walk(tenant, `/api/v1/tickets?updated_since=${done.sync_checkpoint}`)) {
      byId.set(row.id, row);
    }
    const orm = await getTestOrm();
    const current = await orm.em
      .getConnection()
      .execute<{ id: string; status: string; updated_at: string }[]>(
        `select id, status,
                to_char(date_trunc('milliseconds', updated_at) at time zone 'UTC',
                        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at
           from tickets where organisation_id = ? order by id`,
        [tenant.organisationId],
      );
    expect(
      [...byId.values()]
        .map((row) => [row.id, row.status, row.updated_at])
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    ).toEqual(current.map((row) => [row.id, row.status, row.updated_at]));
    // Some of the writes are in the file, and the file is not the database of now.
    expect(done.row_count).toBeLessThan(current.length);
  }, 60_000);
});
