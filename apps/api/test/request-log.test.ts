import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createMetrics, type Metrics } from '../src/http/metrics';
import { hintOf } from '../src/modules/api-keys/api-key.service';
import { RequestLogWriter } from '../src/modules/request-logs/request-log-writer';
import {
  insertRequestLogs,
  type RequestLogRow,
} from '../src/modules/request-logs/request-log.repository';
import { eventInput } from './fixtures';
import {
  call,
  createTenant,
  getTestOrm,
  startTestServer,
  unreachableOrm,
  useTestServer,
  type CallOptions,
  type TestTenant,
} from './setup';

/**
 * The request log over real HTTP and a real PostgreSQL: what a request leaves in its
 * organisation's log (fields, bodies of failed requests, redaction everywhere), and that the log
 * never holds a request up (a full buffer, a database that is away).
 */

const orm = await getTestOrm();
const metrics = createMetrics({ processMetrics: false });
// Written when a test asks (`recordsOf`), so each test sees exactly what its requests left.
const writer = new RequestLogWriter({
  write: (rows) => insertRequestLogs(orm.em, rows),
  flushIntervalMs: 3_600_000,
  onOutcome: metrics.requestLog,
});
const server = useTestServer({ requestLog: writer, metrics });
afterAll(() => writer.stop());

const SDK_AGENT = 'boxoffice-sdk/1.2.3 node/24.11.1 (linux x64)';

/** The sample of a counter of `metrics` with these labels (0 when it has none). */
async function counted(of: Metrics, name: string, labels: Record<string, string> = {}) {
  const metric = of.registry.getSingleMetric(name);
  const { values } = await metric!.get();
  const sample = values.find((value) =>
    Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted),
  );
  return sample?.value ?? 0;
}

type Stored = RequestLogRow & { row_text: string };

/**
 * The organisation's records, oldest first, once at least `count` are there (records are taken
 * when an answer is done, a moment after the client has it); each with its whole row as JSON text.
 */
async function recordsOf(organisationId: string, count: number): Promise<Stored[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    await writer.flush();
    const rows = await orm.em
      .fork()
      .execute<Stored[]>(
        `select r.*, row_to_json(r)::text as row_text from request_logs r where organisation_id = ? order by created_at, id`,
        [organisationId],
      );
    if (rows.length >= count || Date.now() > deadline) return rows;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const send = (
  tenant: Pick<TestTenant, 'key'> | undefined,
  method: string,
  path: string,
  options: CallOptions = {},
) => call(server, method, `/api/v1${path}`, { key: tenant?.key, ...options });

describe('a recorded request', () => {
  it('has its route template, path and query, status, key, SDK, size and request id', async () => {
    const tenant = await createTenant();
    const list = await send(tenant, 'GET', '/events?limit=5', {
      headers: { 'user-agent': SDK_AGENT },
    });
    expect(list.status).toBe(200);
    const missing = await send(tenant, 'GET', '/events/evt_0000000000000000000000000');
    expect(missing.status).toBe(404);
    const [first, second] = await recordsOf(tenant.organisationId, 2);
    expect(first).toMatchObject({
      id: list.headers.get('x-request-id'),
      request_id: list.headers.get('x-request-id'),
      organisation_id: tenant.organisationId,
      livemode: true,
      api_key_id: tenant.apiKeyId,
      key_hint: hintOf(tenant.key),
      method: 'GET',
      route: '/events',
      path: '/events?limit=5',
      status: 200,
      error_code: null,
      user_agent: SDK_AGENT,
      sdk_name: 'boxoffice-sdk',
      sdk_version: '1.2.3',
      response_bytes: Number(list.headers.get('content-length')),
      request_body: null,
      error_body: null,
      client_address: expect.stringMatching(/127\.0\.0\.1$/),
    });
    expect(first!.duration_ms).toBeGreaterThan(0);
    expect(second).toMatchObject({
      route: '/events/:id',
      path: '/events/evt_0000000000000000000000000',
      status: 404,
      error_code: 'not_found',
      sdk_name: null,
      error_body: JSON.stringify(missing.body),
      error_body_truncated: false,
    });
  });

  it('flags an idempotent replay and keeps the Idempotency-Key', async () => {
    const tenant = await createTenant();
    const key = `create-${randomBytes(4).toString('hex')}`;
    const body = eventInput('Replayed');
    const created = await send(tenant, 'POST', '/events', {
      body,
      headers: { 'idempotency-key': key },
    });
    const replayed = await send(tenant, 'POST', '/events', {
      body,
      headers: { 'idempotency-key': key },
    });
    expect([created.status, replayed.status]).toEqual([201, 201]);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    const records = await recordsOf(tenant.organisationId, 2);
    expect(
      records.map((r) => [r.route, r.status, r.idempotency_key, r.idempotent_replayed]),
    ).toEqual([
      ['/events', 201, key, false],
      ['/events', 201, key, true],
    ]);
    // A success keeps no body.
    expect(records.map((r) => r.request_body)).toEqual([null, null]);
  });

  it('keeps the bodies of a failed request, cut at 4 kB and saying so', async () => {
    const tenant = await createTenant();
    const invalid = { ...eventInput('Too long'), currency: 'pounds' };
    const long = { ...eventInput('x'.repeat(10_000)), currency: 42 };
    expect((await send(tenant, 'POST', '/events', { body: invalid })).status).toBe(400);
    expect((await send(tenant, 'POST', '/events', { body: long })).status).toBe(400);
    const [short, cut] = await recordsOf(tenant.organisationId, 2);
    expect(short).toMatchObject({
      status: 400,
      error_code: 'validation_failed',
      request_body: JSON.stringify(invalid),
      request_body_truncated: false,
      request_body_omitted: null,
    });
    expect(JSON.parse(short!.error_body!)).toMatchObject({ code: 'validation_failed' });
    expect(cut!.request_body_truncated).toBe(true);
    expect(Buffer.byteLength(cut!.request_body!)).toBe(4096);
    expect(JSON.stringify(long).startsWith(cut!.request_body!)).toBe(true);
  });

  it('says why a body is not kept: not JSON, not UTF-8, too large, not read', async () => {
    const tenant = await createTenant();
    const free = await createTenant(['read', 'write'], 'free');
    const answers = [
      await send(tenant, 'POST', '/events', {
        rawBody: 'name=Gala',
        headers: { 'content-type': 'text/plain' },
      }),
      await send(tenant, 'POST', '/events', {
        rawBody: '{"name": "Gala',
        headers: { 'content-type': 'application/json' },
      }),
      await send(tenant, 'POST', '/events', {
        rawBody: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        headers: { 'content-type': 'application/json' },
      }),
      await send(tenant, 'POST', '/events', {
        body: { name: 'y'.repeat(200 * 1024) },
      }),
    ];
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 413]);
    const refused = await send(free, 'POST', '/events', { body: eventInput('Free plan') });
    expect(refused.status).toBe(402);
    const records = await recordsOf(tenant.organisationId, 4);
    expect(records.map((r) => [r.error_code, r.request_body, r.request_body_omitted])).toEqual([
      ['unsupported_content_type', null, 'not_json'],
      ['malformed_json', null, 'not_json'],
      ['invalid_encoding', null, 'invalid_utf8'],
      ['body_too_large', null, 'too_large'],
    ]);
    // Refused by the plan before its body was read: recorded, in its organisation's log.
    const [plan] = await recordsOf(free.organisationId, 1);
    expect(plan).toMatchObject({
      status: 402,
      error_code: 'plan_required',
      request_body: null,
      request_body_omitted: 'not_read',
    });
  });

  it('is kept for a path no route has, when the key is valid', async () => {
    const tenant = await createTenant();
    expect((await send(tenant, 'GET', '/evnets?limit=2')).status).toBe(404);
    const [record] = await recordsOf(tenant.organisationId, 1);
    expect(record).toMatchObject({
      route: 'unmatched',
      path: '/evnets?limit=2',
      status: 404,
      error_code: 'route_not_found',
      api_key_id: tenant.apiKeyId,
    });
  });

  it('keeps a request the rate limit refused, with its 429 and code', async () => {
    const limited = await startTestServer({ requestLog: writer, metrics, readsPerMinute: 2 });
    try {
      const tenant = await createTenant(['read']);
      const statuses = [];
      for (let i = 0; i < 3; i += 1) {
        statuses.push((await call(limited, 'GET', '/api/v1/events', { key: tenant.key })).status);
      }
      expect(statuses).toEqual([200, 200, 429]);
      const records = await recordsOf(tenant.organisationId, 3);
      expect(records.map((record) => [record.status, record.error_code])).toEqual([
        [200, null],
        [200, null],
        [429, 'rate_limited'],
      ]);
      expect(records[2]).toMatchObject({ api_key_id: tenant.apiKeyId, route: '/events' });
    } finally {
      await limited.close();
    }
  });

  it('looks up the keys of paths no route has at most 20 times a second, and counts the rest', async () => {
    const tenant = await createTenant();
    const before = await counted(metrics, 'boxoffice_request_log_unattributed_total');
    const flood = 200;
    const answers = await Promise.all(
      Array.from({ length: flood }, (_, i) => send(tenant, 'GET', `/no-such-path/${i}`)),
    );
    expect(answers.every((answer) => answer.status === 404)).toBe(true);
    await expect
      .poll(
        async () =>
          (await counted(metrics, 'boxoffice_request_log_unattributed_total')) -
          before +
          (await recordsOf(tenant.organisationId, 0)).length,
      )
      .toBe(flood);
    const recorded = (await recordsOf(tenant.organisationId, 1)).length;
    // Some seconds' allowance (shared with the other requests of those seconds): 200 requests
    // answered in less than ten seconds keep fewer.
    expect(recorded).toBeGreaterThan(0);
    expect(recorded).toBeLessThan(flood);
    // The next second brings a new allowance, for the tests that follow.
    await new Promise((resolve) => setTimeout(resolve, 1000));
  });

  it('is not kept in any log when authentication fails; it is counted', async () => {
    const before = await counted(metrics, 'boxoffice_request_log_unattributed_total');
    const unknownKey = `bxo_live_${randomBytes(20).toString('hex')}`;
    expect((await send({ key: unknownKey }, 'GET', '/events')).status).toBe(401);
    expect((await send(undefined, 'GET', '/events')).status).toBe(401);
    await expect
      .poll(() => counted(metrics, 'boxoffice_request_log_unattributed_total'))
      .toBe(before + 2);
    await writer.flush();
    const [row] = await orm.em
      .fork()
      .execute<{ n: string }[]>(
        `select count(*) as n from request_logs where path like '/events%' and status = 401`,
      );
    expect(Number(row!.n)).toBe(0);
  });
});

describe('redaction', () => {
  it('leaves no key, signing secret or bearer credential in any column of any record', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const whsec = `whsec_${randomBytes(24).toString('base64')}`;
    const bearer = `tok${randomBytes(12).toString('hex')}`;
    const secrets = [other.key, whsec, bearer, tenant.key];
    // The parts that identify each secret, whatever the encoding around them.
    const needles = [
      other.key.slice(9),
      whsec.slice(6, 30),
      bearer,
      tenant.key.slice(9),
      encodeURIComponent(whsec.slice(6, 30)),
    ];
    const encoded = (text: string) => text.replaceAll('_', '%5F');
    const headers = {
      'user-agent': `custom-client/1.0 (${other.key})`,
      'x-api-key': other.key,
      'x-webhook-secret': whsec,
    };
    const jsonBody = {
      name: `Gala ${other.key}`,
      notes: [{ deep: { secret: whsec } }, `Authorization: Bearer ${bearer}`],
      authorization: `Bearer ${bearer}`,
      currency: 'not a currency',
    };
    const requests: [string, string, CallOptions][] = [
      ['GET', `/events?api_key=${other.key}&q=${encodeURIComponent(whsec)}`, { headers }],
      ['GET', `/events?note=${encoded(other.key)}&s=${encoded(whsec)}`, {}],
      ['GET', `/events/${other.key}`, { headers }],
      ['GET', `/evnets/${encoded(other.key)}?token=${bearer}`, {}],
      ['POST', '/events', { body: jsonBody, headers }],
      [
        'POST',
        '/events',
        {
          rawBody: `key=${other.key}&secret=${whsec}&auth=Bearer ${bearer}`,
          headers: { 'content-type': 'text/plain' },
        },
      ],
      [
        'POST',
        '/events',
        {
          rawBody: Buffer.concat([
            Buffer.from(`{"name":"${other.key} ${whsec}`),
            Buffer.from([0xc3, 0x28]),
            Buffer.from('"}'),
          ]),
          headers: { 'content-type': 'application/json' },
        },
      ],
      ['POST', '/events', { body: { name: `${other.key} `.repeat(3000), s: whsec } }],
      [
        'POST',
        '/events',
        { body: { name: 'x', pad: 'p'.repeat(4000), at_the_cut: `${other.key}${whsec}` } },
      ],
      [
        'POST',
        '/events',
        {
          body: eventInput('Fine'),
          headers: { 'idempotency-key': `retry-${other.key}` },
        },
      ],
    ];
    for (const [method, path, options] of requests) {
      const answer = await send(tenant, method, path, options);
      expect(answer.status, `${method} ${path}`).toBeGreaterThanOrEqual(200);
    }
    const records = await recordsOf(tenant.organisationId, requests.length);
    expect(records).toHaveLength(requests.length);
    for (const record of records) {
      for (const needle of needles) expect(record.row_text).not.toContain(needle);
      for (const secret of secrets) expect(record.row_text).not.toContain(secret);
    }
    // What was redacted says so, and the rest stays readable.
    expect(records[0]!.path).toBe('/events?api_key=[redacted]&q=[redacted]');
    expect(records[0]!.user_agent).toBe('custom-client/1.0 ([redacted])');
    expect(records[4]!.request_body).toContain('"authorization":"[redacted]"');
    expect(records[4]!.request_body).toContain('"currency":"not a currency"');
    expect(records.map((r) => r.request_body_omitted)).toEqual([
      null,
      null,
      null,
      null,
      null,
      'not_json',
      'invalid_utf8',
      'too_large',
      null,
      null,
    ]);
    // The key itself is kept only as its hint.
    expect(records[0]!.key_hint).toBe(hintOf(tenant.key));
  });
});

describe('off the request path', () => {
  it('drops records past a full buffer and counts them, failing no request', async () => {
    const own = createMetrics({ processMetrics: false });
    let release: () => void = () => undefined;
    const full = new RequestLogWriter({
      write: () => new Promise<void>((resolve) => (release = resolve)),
      maxBuffered: 10,
      batchSize: 1000,
      flushIntervalMs: 3_600_000,
      onOutcome: own.requestLog,
    });
    const busy = await startTestServer({ requestLog: full, metrics: own });
    try {
      const tenant = await createTenant(['read']);
      const statuses = [];
      for (let i = 0; i < 25; i += 1) {
        statuses.push((await call(busy, 'GET', '/api/v1/events', { key: tenant.key })).status);
      }
      expect(statuses).toEqual(Array(25).fill(200));
      await expect
        .poll(() =>
          counted(own, 'boxoffice_request_log_records_total', {
            outcome: 'dropped_buffer_full',
          }),
        )
        .toBe(15);
      expect(full.buffered).toBe(10);
      const flushed = full.flush();
      release();
      await flushed;
      expect(
        await counted(own, 'boxoffice_request_log_records_total', { outcome: 'written' }),
      ).toBe(10);
    } finally {
      await busy.close();
      await full.stop();
    }
  });

  it('serves every request while the database refuses the log, and counts the dropped batches', async () => {
    const own = createMetrics({ processMetrics: false });
    const away = await unreachableOrm();
    const failing = new RequestLogWriter({
      write: (rows) => insertRequestLogs(away.em, rows),
      flushIntervalMs: 50,
      onOutcome: own.requestLog,
    }).start();
    const served = await startTestServer({ requestLog: failing, metrics: own });
    try {
      const tenant = await createTenant();
      for (let i = 0; i < 10; i += 1) {
        const started = performance.now();
        const answer = await call(served, 'GET', '/api/v1/events', { key: tenant.key });
        expect(answer.status).toBe(200);
        expect(performance.now() - started).toBeLessThan(2000);
      }
      await expect
        .poll(
          () =>
            counted(own, 'boxoffice_request_log_records_total', {
              outcome: 'dropped_write_failed',
            }),
          { timeout: 10_000 },
        )
        .toBe(10);
      expect(
        await counted(own, 'boxoffice_request_log_records_total', { outcome: 'written' }),
      ).toBe(0);
    } finally {
      await served.close();
      await failing.stop(1000);
      await away.close();
    }
  });
});
