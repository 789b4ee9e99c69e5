import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestLogWriter } from '../src/modules/request-logs/request-log-writer';
import { insertRequestLogs } from '../src/modules/request-logs/request-log.repository';
import { Visitor } from './dashboard-visitor';
import { call, getTestOrm, startTestServer, type CallResult, type TestServer } from './setup';

/**
 * The dashboard's Logs and Usage routes: each organisation sees its own records only, in the mode
 * of the request (test mode shows the test environment's), filtered and paged by cursor; usage
 * sums them per bucket; the keys list counts each key's requests of the last 24 hours.
 */

const orm = await getTestOrm();
const writer = new RequestLogWriter({
  write: (rows) => insertRequestLogs(orm.em, rows),
  flushIntervalMs: 3_600_000,
});
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ requestLog: writer });
});
afterAll(async () => {
  await server.close();
  await writer.stop();
});

const TEST = { 'x-boxoffice-mode': 'test' };

const expectStatus = (result: CallResult, status: number) =>
  expect(result.status, JSON.stringify(result.body)).toBe(status);

interface Environment {
  key: string;
  keyId: string;
  /** Request ids of the API requests made with the key, oldest first. */
  requests: { id: string; status: number; path: string }[];
}

/** A signed-up owner on the Pro plan, with a live and a test key, each used for a few requests. */
class Owner extends Visitor {
  live!: Environment;
  test!: Environment;

  get(path: string, headers: Record<string, string> = {}) {
    return this.request('GET', path, undefined, headers);
  }

  async use(environment: Environment, method: string, path: string, body?: unknown) {
    const answer = await call(server, method, `/api/v1${path}`, { key: environment.key, body });
    environment.requests.push({
      id: answer.headers.get('x-request-id')!,
      status: answer.status,
      path,
    });
  }

  static async make(): Promise<Owner> {
    const owner = new Owner(server);
    await owner.signUp();
    expectStatus(await owner.request('PUT', '/plan', { plan: 'pro' }), 200);
    for (const mode of ['live', 'test'] as const) {
      const created = await owner.request(
        'POST',
        '/keys',
        { name: `${mode} app`, scopes: ['read', 'write'] },
        mode === 'test' ? TEST : {},
      );
      expectStatus(created, 201);
      owner[mode] = {
        key: created.body.data.secret,
        keyId: created.body.data.key.id,
        requests: [],
      };
    }
    await owner.use(owner.live, 'GET', '/events?limit=1');
    await owner.use(owner.live, 'GET', '/events/evt_0000000000000000000000000');
    await owner.use(owner.live, 'POST', '/events', { name: 'No dates' });
    await owner.use(owner.live, 'GET', '/orders');
    await owner.use(owner.test, 'GET', '/events');
    await owner.use(owner.test, 'GET', '/tickets?limit=2');
    return owner;
  }
}

let a: Owner;
let b: Owner;

/** Every record the list gives, walking its pages (`limit` each). */
async function walk(owner: Owner, query: string, headers: Record<string, string> = {}) {
  const seen: { id: string; request_id: string; status: number; route: string }[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page += 1) {
    const result = await owner.get(`/logs?${query}${cursor ? `&cursor=${cursor}` : ''}`, headers);
    expectStatus(result, 200);
    seen.push(...result.body.data);
    cursor = result.body.next_cursor;
    if (!cursor) return seen;
  }
  throw new Error('the walk did not end');
}

beforeAll(async () => {
  [a, b] = [await Owner.make(), await Owner.make()];
  // Records are taken as each answer ends, a moment after the client has it.
  for (let tries = 0; tries < 100; tries += 1) {
    await writer.flush();
    const found = (await walk(a, 'limit=100')).length + (await walk(b, 'limit=100', TEST)).length;
    if (found >= 6) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});

describe('GET /dashboard/api/logs', () => {
  it("lists the organisation's own records of the mode, newest first", async () => {
    for (const owner of [a, b]) {
      const live = await owner.get('/logs');
      expectStatus(live, 200);
      expect(live.body.data.map((r: { request_id: string }) => r.request_id)).toEqual(
        owner.live.requests.map((r) => r.id).reverse(),
      );
      expect(live.body.next_cursor).toBeNull();
      expect(live.body.data.every((r: { livemode: boolean }) => r.livemode)).toBe(true);
      const test = await owner.get('/logs', TEST);
      expect(test.body.data.map((r: { request_id: string }) => r.request_id)).toEqual(
        owner.test.requests.map((r) => r.id).reverse(),
      );
      expect(test.body.data.every((r: { livemode: boolean }) => !r.livemode)).toBe(true);
    }
    // The list's fields, without the bodies.
    const [newest] = (await a.get('/logs?limit=1')).body.data;
    expect(Object.keys(newest).sort()).toEqual(
      [
        'created_at',
        'duration_ms',
        'error_code',
        'id',
        'idempotency_key',
        'idempotent_replayed',
        'key_hint',
        'key_id',
        'livemode',
        'method',
        'path',
        'request_id',
        'route',
        'sdk_name',
        'sdk_version',
        'status',
      ].sort(),
    );
  });

  it('filters by status class, status, key, method, route and request id', async () => {
    const ids = async (query: string, headers: Record<string, string> = {}) =>
      (await walk(a, query, headers)).map((r) => r.request_id);
    const live = a.live.requests;
    const byStatus = (test: (status: number) => boolean) =>
      live
        .filter((r) => test(r.status))
        .map((r) => r.id)
        .reverse();
    expect(await ids('status_class=2xx')).toEqual(byStatus((s) => s < 300));
    expect(await ids('status_class=4xx')).toEqual(byStatus((s) => s >= 400 && s < 500));
    expect(await ids('status=404')).toEqual(byStatus((s) => s === 404));
    expect(await ids('status_class=5xx')).toEqual([]);
    expect(await ids(`key_id=${a.live.keyId}`)).toEqual(byStatus(() => true));
    expect(await ids(`key_id=${a.test.keyId}`)).toEqual([]);
    expect(await ids('method=POST')).toEqual([live[2]!.id]);
    expect(await ids(`route=${encodeURIComponent('/events/:id')}`)).toEqual([live[1]!.id]);
    expect(await ids(`request_id=${live[3]!.id}`)).toEqual([live[3]!.id]);
    // Another organisation's request id finds nothing.
    expect(await ids(`request_id=${b.live.requests[0]!.id}`)).toEqual([]);
  });

  it('pages by cursor without repeating or skipping a record', async () => {
    const all = await walk(a, 'limit=100');
    const paged = await walk(a, 'limit=1');
    expect(paged.map((r) => r.id)).toEqual(all.map((r) => r.id));
    expect(new Set(paged.map((r) => r.id)).size).toBe(a.live.requests.length);
  });

  it('refuses a cursor it did not make, and bad filters, with a 400', async () => {
    for (const query of ['cursor=bm90LWEtY3Vyc29y', 'limit=0', 'status_class=6xx', 'colour=red']) {
      const result = await a.get(`/logs?${query}`);
      expectStatus(result, 400);
      expect(result.body.code).toMatch(/^(invalid_cursor|validation_failed)$/);
    }
  });

  it('needs a session', async () => {
    expectStatus(await call(server, 'GET', '/dashboard/api/logs'), 401);
  });
});

describe('GET /dashboard/api/logs/:id', () => {
  it('gives one of its own records in full, and a 404 for anyone else’s', async () => {
    const [failed] = await walk(a, 'method=POST');
    const record = await a.get(`/logs/${failed!.id}`);
    expectStatus(record, 200);
    expect(record.body.data).toMatchObject({
      id: failed!.id,
      method: 'POST',
      status: 400,
      error_code: 'validation_failed',
      request_body: JSON.stringify({ name: 'No dates' }),
      request_body_truncated: false,
      request_body_omitted: null,
      error_body: expect.stringContaining('validation_failed'),
      client_address: expect.any(String),
    });
    expectStatus(await b.get(`/logs/${failed!.id}`), 404);
    // Nor from the same organisation's other mode.
    expectStatus(await a.get(`/logs/${failed!.id}`, TEST), 404);
  });
});

describe('GET /dashboard/api/usage', () => {
  it('sums the requests per 5 minutes over 24 hours, by status class', async () => {
    const usage = await a.get('/usage?window=24h');
    expectStatus(usage, 200);
    const { data } = usage.body;
    expect(data).toMatchObject({ window: '24h', bucket_seconds: 300, key_id: null });
    expect(data.buckets).toHaveLength(288);
    const sum = (field: string) =>
      data.buckets.reduce((n: number, bucket: Record<string, number>) => n + bucket[field]!, 0);
    expect(sum('requests')).toBe(4);
    expect(sum('requests_2xx')).toBe(2);
    expect(sum('requests_4xx')).toBe(2);
    expect(sum('requests_5xx')).toBe(0);
    const busy = data.buckets.filter((bucket: { requests: number }) => bucket.requests > 0);
    for (const bucket of busy) expect(bucket.p99_ms).toBeGreaterThanOrEqual(bucket.p50_ms);
    expect(data.buckets.at(-1).start > data.buckets[0].start).toBe(true);
    expect(data.webhook_deliveries).toHaveLength(14);
  });

  it('sums per day over 14 days, for one key or all, in the mode of the request', async () => {
    const days = await a.get('/usage?window=14d', TEST);
    expectStatus(days, 200);
    expect(days.body.data.buckets).toHaveLength(14);
    expect(days.body.data.buckets.at(-1).requests).toBe(2);
    const other = await a.get(`/usage?window=14d&key_id=${a.live.keyId}`, TEST);
    expect(other.body.data.buckets.at(-1).requests).toBe(0);
    expectStatus(await a.get('/usage?window=7d'), 400);
  });
});

describe('GET /dashboard/api/keys', () => {
  it("counts each key's requests of the last 24 hours", async () => {
    const live = await a.get('/keys');
    expectStatus(live, 200);
    const key = live.body.data.find((k: { id: string }) => k.id === a.live.keyId);
    expect(key).toMatchObject({ requests_24h: 4, last_used_at: expect.any(String) });
    const test = await a.get('/keys', TEST);
    const testKey = test.body.data.find((k: { id: string }) => k.id === a.test.keyId);
    expect(testKey.requests_24h).toBe(2);
  });
});
