import { contract } from '@boxoffice/contract';
import type { AppRoute } from '@ts-rest/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLOCK_START, FakeClock } from '../test/fake-clock';
import { harness, recordingLogger, TEST_BASE_URL, TEST_KEY, testKey } from '../test/harness';
import {
  item,
  json,
  rateLimitHeaders,
  ScriptedFetch,
  type RecordedRequest,
  type Reply,
} from '../test/scripted-fetch';
import * as sdk from './index';
import { Boxoffice, BoxofficeError, DEFAULT_BASE_URL, Page, PagePromise } from './index';

const ENV_NAMES = ['BOXOFFICE_API_KEY', 'BOXOFFICE_BASE_URL', 'BOXOFFICE_LOG'] as const;
let savedEnv: Record<string, string | undefined>;

beforeEach(() => {
  savedEnv = Object.fromEntries(ENV_NAMES.map((name) => [name, process.env[name]]));
  for (const name of ENV_NAMES) delete process.env[name];
});

afterEach(() => {
  for (const name of ENV_NAMES) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
  vi.unstubAllGlobals();
});

/**
 * A list endpoint over `total` items named `<prefix>_<n>`, paged as the server pages: by `page`,
 * or after the item a `cursor` (`at<n>`) names; a cursor with `page` is refused.
 */
function listing(total: number, prefix = 'evt'): Reply {
  return ({ url }) => {
    const search = new URL(url).searchParams;
    const cursor = search.get('cursor');
    if (cursor !== null && search.has('page')) {
      return json(400, { error: 'cursor and page cannot be combined' })({} as RecordedRequest);
    }
    const limit = Number(search.get('limit') ?? 20);
    const start = cursor ? Number(cursor.slice(2)) : (Number(search.get('page') ?? 1) - 1) * limit;
    const page = Math.floor(start / limit) + 1;
    const count = Math.max(0, Math.min(limit, total - start));
    const data = Array.from({ length: count }, (_, i) => ({ id: `${prefix}_${start + i}` }));
    const next_cursor = start + count < total ? `at${start + count}` : null;
    const sync_checkpoint = '2026-11-23T12:00:00.000Z';
    return json(200, { data, total, page, limit, next_cursor, sync_checkpoint })(
      {} as RecordedRequest,
    );
  };
}

const paths = (requests: RecordedRequest[]) =>
  requests.map((r) => `${r.method} ${r.url.slice(TEST_BASE_URL.length)}`);

describe('construction', () => {
  it('needs an API key, and says where to put it', () => {
    expect(() => new Boxoffice()).toThrow(BoxofficeError);
    expect(() => new Boxoffice()).toThrow(/BOXOFFICE_API_KEY/);
    expect(() => new Boxoffice({ apiKey: '' })).toThrow(/BOXOFFICE_API_KEY/);
    process.env.BOXOFFICE_API_KEY = '   ';
    expect(() => new Boxoffice()).toThrow(/BOXOFFICE_API_KEY/);
  });

  it('takes the key from BOXOFFICE_API_KEY, unless given one', async () => {
    const fromEnvironment = testKey();
    process.env.BOXOFFICE_API_KEY = fromEnvironment;
    const script = new ScriptedFetch({ fallback: item({ id: 'evt_1' }) });
    await new Boxoffice({ fetch: script.fetch }).events.get('evt_1');
    await new Boxoffice({ fetch: script.fetch, apiKey: TEST_KEY }).events.get('evt_1');
    expect(script.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${fromEnvironment}`,
      `Bearer ${TEST_KEY}`,
    ]);
  });

  it('sends to localhost:3000 by default, to BOXOFFICE_BASE_URL when set, to baseURL when given', async () => {
    const script = new ScriptedFetch({ fallback: item({ id: 'evt_1' }) });
    const make = (baseURL?: string) =>
      new Boxoffice({ apiKey: TEST_KEY, fetch: script.fetch, baseURL });

    const local = make();
    expect(local.baseURL).toBe('http://localhost:3000/api/v1');
    expect(DEFAULT_BASE_URL).toBe('http://localhost:3000/api/v1');
    await local.events.get('evt_1');

    process.env.BOXOFFICE_BASE_URL = 'https://staging.example.com/api/v1/';
    const staging = make();
    expect(staging.baseURL).toBe('https://staging.example.com/api/v1');
    await staging.events.get('evt_1');

    await make('https://api.example.com/api/v1').events.get('evt_1');
    expect(script.requests.map((r) => r.url)).toEqual([
      'http://localhost:3000/api/v1/events/evt_1',
      'https://staging.example.com/api/v1/events/evt_1',
      'https://api.example.com/api/v1/events/evt_1',
    ]);
  });

  it('refuses to run in a browser unless dangerouslyAllowBrowser', () => {
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    expect(() => new Boxoffice({ apiKey: TEST_KEY })).toThrow(BoxofficeError);
    expect(() => new Boxoffice({ apiKey: TEST_KEY })).toThrow(/dangerouslyAllowBrowser/);
    expect(() => new Boxoffice({ apiKey: TEST_KEY, dangerouslyAllowBrowser: true })).not.toThrow();
  });

  it('runs where there is a window but no document (e.g. a worker shim)', () => {
    vi.stubGlobal('window', {});
    expect(() => new Boxoffice({ apiKey: TEST_KEY })).not.toThrow();
  });

  it('uses the global fetch by default, and needs one', async () => {
    const script = new ScriptedFetch({ fallback: item({ id: 'evt_1' }) });
    vi.stubGlobal('fetch', script.fetch);
    await new Boxoffice({ apiKey: TEST_KEY }).events.get('evt_1');
    expect(script.requests).toHaveLength(1);

    vi.stubGlobal('fetch', undefined);
    expect(() => new Boxoffice({ apiKey: TEST_KEY })).toThrow(/fetch/);
  });

  it('takes the log level from BOXOFFICE_LOG, ignoring unknown ones', async () => {
    const run = async (options: { logLevel?: sdk.LogLevel } = {}) => {
      const logger = recordingLogger();
      const script = new ScriptedFetch({ fallback: item({ id: 'evt_1' }) });
      await new Boxoffice({ apiKey: TEST_KEY, fetch: script.fetch, logger, ...options }).events.get(
        'evt_1',
      );
      return logger.lines.map((l) => l.level);
    };
    expect(await run()).toEqual([]);
    process.env.BOXOFFICE_LOG = 'debug';
    expect(await run()).toEqual(['debug', 'debug']);
    expect(await run({ logLevel: 'off' })).toEqual([]);
    // An unknown level is said once, at warn, and then the default applies.
    process.env.BOXOFFICE_LOG = 'loud';
    expect(await run()).toEqual(['warn']);
    expect(await run({ logLevel: 'info' })).toEqual([]);
  });

  it('logs to the console by default', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
    try {
      const script = new ScriptedFetch().reply(json(503, { error: 'x' }), item({ id: 'evt_1' }));
      const client = new Boxoffice({
        apiKey: TEST_KEY,
        fetch: script.fetch,
        clock: new FakeClock(),
        logLevel: 'info',
      });
      await client.events.get('evt_1');
      expect(info).toHaveBeenCalledTimes(1);
      expect(info.mock.calls[0]![0]).toMatch(/retry 1 of 2/);
      expect(debug).not.toHaveBeenCalled();
    } finally {
      info.mockRestore();
      debug.mockRestore();
    }
  });
});

describe('resources', () => {
  const byUrl: Reply = (request) => {
    const path = new URL(request.url).pathname;
    if (
      /\/(events|tiers|orders|tickets|attendees|checkins|payouts)$/.test(path) &&
      request.method === 'GET'
    ) {
      return listing(1, 'x')(request);
    }
    // A batch answers with its results, one per scan.
    if (path.endsWith('/checkins/batch')) return item([])(request);
    return item({ id: path.split('/').pop() }, request.method === 'POST' ? 201 : 200)(request);
  };

  it('sends each method to its route', async () => {
    const { client, script } = harness({ fallback: byUrl });
    const event = {
      name: 'Gig',
      timezone: 'Europe/London',
      starts_at: '2030-03-01T19:00:00Z',
      ends_at: '2030-03-01T23:00:00Z',
      currency: 'GBP',
    };
    await client.events.list();
    await client.events.get('evt_1');
    await client.events.create(event);
    await client.events.update('evt_1', { status: 'published' });
    await client.tiers.list({ event_id: 'evt_1' });
    await client.tiers.get('tier_1');
    await client.tiers.create({ event_id: 'evt_1', name: 'GA', price: 2500 });
    await client.tiers.update('tier_1', { quantity_total: 10 });
    await client.orders.list();
    await client.orders.get('ord_1');
    await client.tickets.list();
    await client.tickets.get('tkt_1');
    await client.attendees.list();
    await client.attendees.get('att_1');
    await client.checkins.list();
    await client.checkins.get('chk_1');
    await client.checkins.create({ code: 'ABCDEFGHIJKLMNOPQRSTUV', gate: 'North' });
    await client.payouts.list();
    await client.payouts.get('po_1');
    expect(paths(script.requests)).toEqual([
      'GET /events',
      'GET /events/evt_1',
      'POST /events',
      'PATCH /events/evt_1',
      'GET /tiers?event_id=evt_1',
      'GET /tiers/tier_1',
      'POST /tiers',
      'PATCH /tiers/tier_1',
      'GET /orders',
      'GET /orders/ord_1',
      'GET /tickets',
      'GET /tickets/tkt_1',
      'GET /attendees',
      'GET /attendees/att_1',
      'GET /checkins',
      'GET /checkins/chk_1',
      'POST /checkins',
      'GET /payouts',
      'GET /payouts/po_1',
    ]);
    const bodies = script.requests.filter((r) => r.body !== undefined).map((r) => r.body);
    expect(bodies).toEqual([
      event,
      { status: 'published' },
      { event_id: 'evt_1', name: 'GA', price: 2500 },
      { quantity_total: 10 },
      { code: 'ABCDEFGHIJKLMNOPQRSTUV', gate: 'North' },
    ]);
  });

  it('sends a batch of check-ins and resolves to its results, one per scan', async () => {
    const results = [
      { status: 201, data: { id: 'chk_1' }, replayed: false },
      { status: 409, data: null, code: 'already_checked_in', error: 'in', replayed: true },
    ];
    const { client, script } = harness({}, item(results), item({ id: 'chk_1' }));
    const scans = [
      { code: 'AAAA', idempotency_key: 'north-1:1' },
      { ticket_id: 'tkt_1', idempotency_key: 'north-1:2' },
    ];
    expect(await client.checkins.createBatch(scans)).toEqual(results);
    expect(paths(script.requests)).toEqual(['POST /checkins/batch']);
    expect(script.requests[0]?.body).toEqual({ checkins: scans });
    expect(script.requests[0]?.headers['idempotency-key']).toMatch(/^sdk_/);
    // An object where the results belong is not the API's answer.
    await expect(client.checkins.createBatch(scans)).rejects.toThrow(/not a \{ "data": \[ … \] \}/);
  });

  it('has exactly the contract’s routes for each of its resources, with their methods and paths', async () => {
    const { client, script } = harness({ fallback: byUrl });
    const resources = ['events', 'tiers', 'orders', 'tickets', 'attendees', 'checkins', 'payouts'];
    for (const resource of resources) {
      const routes = (contract as unknown as Record<string, Record<string, AppRoute>>)[resource];
      expect(routes, `contract.${resource}`).toBeDefined();
      const methods = (client as unknown as Record<string, Record<string, unknown>>)[resource]!;
      for (const [name, route] of Object.entries(routes!)) {
        expect(typeof methods[name], `${resource}.${name}`).toBe('function');
        const id = route.path.includes(':id') ? ['x_1'] : [];
        const body = route.method === 'GET' ? [] : [{}];
        await (methods[name] as (...args: unknown[]) => Promise<unknown>).call(
          methods,
          ...id,
          ...body,
        );
        const request = script.requests.at(-1)!;
        expect(`${request.method} ${new URL(request.url).pathname}`).toBe(
          `${route.method} /api/v1${route.path.replace(':id', 'x_1')}`,
        );
      }
      // And no method beyond the contract's routes.
      const own = ['list', 'get', 'create', 'createBatch', 'update'].filter(
        (name) => name in methods,
      );
      expect(own.sort()).toEqual(Object.keys(routes!).sort());
    }
  });

  it('sends each test helper to its route, with an idempotency key and its body if any', async () => {
    const { client, script } = harness({ fallback: byUrl });
    const order = { event_id: 'evt_1', tier_id: 'tier_1', quantity: 2 };
    await client.testHelpers.orders.create(order);
    await client.testHelpers.orders.refund('ord_1');
    await client.testHelpers.payouts.advance('po_1');
    await client.testHelpers.payouts.advance('po_1', { fail: true });
    await client.testHelpers.reset();
    const byKey = Object.entries(contract.testHelpers).map(
      ([key, route]) => `${key} ${route.method} ${route.path}`,
    );
    expect(byKey).toEqual([
      'createOrder POST /test_helpers/orders',
      'refundOrder POST /test_helpers/orders/:id/refund',
      'advancePayout POST /test_helpers/payouts/:id/advance',
      'reset POST /test_helpers/reset',
    ]);
    expect(paths(script.requests)).toEqual([
      'POST /test_helpers/orders',
      'POST /test_helpers/orders/ord_1/refund',
      'POST /test_helpers/payouts/po_1/advance',
      'POST /test_helpers/payouts/po_1/advance',
      'POST /test_helpers/reset',
    ]);
    expect(script.requests.map((r) => r.body)).toEqual([
      order,
      undefined,
      undefined,
      { fail: true },
      undefined,
    ]);
    expect(script.requests.map((r) => r.headers['content-type'])).toEqual([
      'application/json',
      undefined,
      undefined,
      'application/json',
      undefined,
    ]);
    for (const request of script.requests) {
      expect(request.headers['idempotency-key']).toMatch(/^sdk_/);
    }
  });

  it('unwraps one object from its { data } envelope', async () => {
    const tier = { id: 'tier_1', name: 'GA', price: 2500 };
    const { client } = harness({}, item(tier), item(tier, 201), item(tier));
    await expect(client.tiers.get('tier_1')).resolves.toEqual(tier);
    await expect(
      client.tiers.create({ event_id: 'evt_1', name: 'GA', price: 2500 }),
    ).resolves.toEqual(tier);
    await expect(client.tiers.update('tier_1', { name: 'GA' })).resolves.toEqual(tier);
  });

  it('gives the raw response with withResponse', async () => {
    const { client } = harness(
      {},
      item({ id: 'evt_1' }, 200, { 'x-request-id': 'req_42', ...rateLimitHeaders(60, 57, 12) }),
      listing(3),
    );
    const { data, response } = await client.events.get('evt_1').withResponse();
    expect(data).toEqual({ id: 'evt_1' });
    expect(response).toBeInstanceOf(Response);
    expect(response.headers.get('x-request-id')).toBe('req_42');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('57');
    expect(client.rateLimit('read')).toEqual({
      limit: 60,
      remaining: 57,
      resetAt: CLOCK_START + 12_000,
      pausedUntil: 0,
    });

    const list = await client.events.list().withResponse();
    expect(list.data).toBeInstanceOf(Page);
    expect(list.data.data).toHaveLength(3);
    expect(list.response.status).toBe(200);
  });

  it('can be awaited more than once without sending again', async () => {
    const { client, script } = harness({}, item({ id: 'evt_1' }));
    const promise = client.events.get('evt_1');
    expect(await promise).toEqual({ id: 'evt_1' });
    expect(await promise).toEqual({ id: 'evt_1' });
    expect((await promise.withResponse()).data).toEqual({ id: 'evt_1' });
    expect(script.requests).toHaveLength(1);
  });

  it('URL-encodes path ids', async () => {
    const { client, script } = harness({ fallback: item({}) });
    await client.events.get('evt_1/../../admin');
    await client.tickets.get('tkt 1?x=#');
    await client.events.update('ü', { name: 'x' });
    expect(paths(script.requests)).toEqual([
      'GET /events/evt_1%2F..%2F..%2Fadmin',
      'GET /tickets/tkt%201%3Fx%3D%23',
      'PATCH /events/%C3%BC',
    ]);
  });
});

describe('lists', () => {
  it('awaits to a Page', async () => {
    const { client } = harness({ fallback: listing(45) });
    const list = client.events.list();
    expect(list).toBeInstanceOf(PagePromise);
    const page = await list;
    expect(page).toBeInstanceOf(Page);
    expect(page.data).toHaveLength(20);
    expect(page).toMatchObject({ total: 45, page: 1, limit: 20 });
    expect(page.hasNextPage()).toBe(true);
    const next = await page.getNextPage();
    expect(next.page).toBe(2);
    expect(next.data[0]).toEqual({ id: 'evt_20' });
  });

  it.each([
    [45, 3],
    [40, 2],
    [0, 1],
  ])('reads every one of %i items in exactly %i requests', async (total, requests) => {
    const { client, script } = harness({ fallback: listing(total) });
    const ids: string[] = [];
    for await (const event of client.events.list()) ids.push(event.id);
    expect(ids).toEqual(Array.from({ length: total }, (_, i) => `evt_${i}`));
    expect(new Set(ids).size).toBe(total);
    expect(script.requests).toHaveLength(requests);
  });

  it('goes page by page with iterPages', async () => {
    const { client, script } = harness({ fallback: listing(45) });
    const sizes: number[] = [];
    for await (const page of client.events.list().iterPages()) sizes.push(page.data.length);
    expect(sizes).toEqual([20, 20, 5]);
    expect(script.requests).toHaveLength(3);
  });

  it('keeps the filters on every page, starts at the page asked for, then follows cursors', async () => {
    const { client, script } = harness({ fallback: listing(12, 'ord') });
    const orders = [];
    for await (const order of client.orders.list({
      event_id: 'evt_1',
      status: 'completed',
      limit: 5,
      page: 2,
    })) {
      orders.push(order);
    }
    expect(orders).toHaveLength(7);
    expect(paths(script.requests)).toEqual([
      'GET /orders?event_id=evt_1&status=completed&limit=5&page=2',
      'GET /orders?event_id=evt_1&status=completed&limit=5&cursor=at10',
    ]);
  });

  it('resumes a walk from a stored cursor', async () => {
    const { client, script } = harness({ fallback: listing(12, 'ord') });
    const first = await client.orders.list({ status: 'completed', limit: 5 });
    expect(first.nextCursor).toBe('at5');
    expect(first.syncCheckpoint).toBe('2026-11-23T12:00:00.000Z');
    const rest = [];
    for await (const order of client.orders.list({
      status: 'completed',
      limit: 5,
      cursor: first.nextCursor!,
    })) {
      rest.push(order.id);
    }
    expect(rest).toEqual(Array.from({ length: 7 }, (_, i) => `ord_${5 + i}`));
    expect(paths(script.requests)).toEqual([
      'GET /orders?status=completed&limit=5',
      'GET /orders?status=completed&limit=5&cursor=at5',
      'GET /orders?status=completed&limit=5&cursor=at10',
    ]);
  });

  it('writes arrays comma-joined, dates as ISO, booleans as words, and leaves out undefined', async () => {
    const { client, script } = harness({ fallback: listing(0) });
    await client.events.list({
      status: ['draft', 'published'],
      starts_after: new Date('2030-03-01T00:00:00Z'),
      q: 'jazz & blues',
      updated_since: undefined,
    });
    await client.attendees.list({ checked_in: true });
    await client.attendees.list({ checked_in: false, email: 'a+b@example.com' });
    expect(paths(script.requests)).toEqual([
      'GET /events?status=draft%2Cpublished&starts_after=2030-03-01T00%3A00%3A00.000Z&q=jazz+%26+blues',
      'GET /attendees?checked_in=true',
      'GET /attendees?checked_in=false&email=a%2Bb%40example.com',
    ]);
    const search = new URL(script.requests[0]!.url).searchParams;
    expect(search.get('status')).toBe('draft,published');
    expect(search.get('starts_after')).toBe('2030-03-01T00:00:00.000Z');
    expect(search.has('updated_since')).toBe(false);
  });

  it('fails the loop with the error of a page', async () => {
    let served = 0;
    const { client, script } = harness({
      maxRetries: 0,
      fallback: (request) => {
        served += 1;
        return served === 2
          ? json(404, { error: 'event not found' })(request)
          : listing(45)(request);
      },
    });
    const ids: string[] = [];
    const loop = async () => {
      for await (const event of client.events.list()) ids.push(event.id);
    };
    await expect(loop()).rejects.toBeInstanceOf(sdk.NotFoundError);
    expect(ids).toHaveLength(20);
    expect(script.requests).toHaveLength(2);
  });
});

describe('package entry', () => {
  it('exports every error class, each catchable by instanceof', () => {
    const classes = [
      'APIConnectionError',
      'APIConnectionTimeoutError',
      'APIError',
      'APIUserAbortError',
      'AuthenticationError',
      'BadRequestError',
      'BoxofficeError',
      'ConflictError',
      'InternalServerError',
      'NotFoundError',
      'PermissionDeniedError',
      'PlanRequiredError',
      'RateLimitError',
      'UnprocessableEntityError',
    ] as const;
    for (const name of classes) {
      expect(sdk[name], name).toBeTypeOf('function');
      expect(sdk[name].prototype instanceof Error, name).toBe(true);
      if (name !== 'BoxofficeError') {
        expect(sdk[name].prototype, name).toBeInstanceOf(sdk.BoxofficeError);
      }
    }
    expect(sdk.APIError.generate(404, {}, new Headers())).toBeInstanceOf(sdk.NotFoundError);
    expect(new sdk.APIConnectionTimeoutError()).toBeInstanceOf(sdk.APIConnectionError);
  });

  it('exports the client, pagination and retry defaults', () => {
    expect(sdk.Boxoffice).toBe(Boxoffice);
    expect(sdk.DEFAULT_RETRY.maxRetries).toBe(2);
    expect(sdk.Page).toBeTypeOf('function');
    expect(sdk.PagePromise).toBeTypeOf('function');
    expect(sdk.APIPromise).toBeTypeOf('function');
  });
});
