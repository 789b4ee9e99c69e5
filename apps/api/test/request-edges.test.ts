import { API_BASE_PATH, contract } from '@boxoffice/contract';
import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildEvent, LISTS } from './fixtures';
import { call, createTenant, useTestServer, type TestTenant } from './setup';

const server = useTestServer();

let tenant: TestTenant;
let eventId: string;
beforeAll(async () => {
  tenant = await createTenant();
  eventId = (await buildEvent(tenant.organisationId)).event.id;
});

const get = (path: string) => call(server, 'GET', `${API_BASE_PATH}${path}`, { key: tenant.key });

/** A 400 `validation_failed` whose message is `message`, as the body's unknown fields are. */
function expectRefused(result: Awaited<ReturnType<typeof get>>, message: string, field: string) {
  expect(result.status, JSON.stringify(result.body)).toBe(400);
  expect(result.body).toMatchObject({ error: message, code: 'validation_failed' });
  expect(result.body.details[0]).toEqual({ field, message });
}

describe('unknown query parameters', () => {
  const lists = [...LISTS, 'webhook_endpoints'];

  it('are refused on every list, naming the parameter and the one it resembles', async () => {
    expect(lists).toHaveLength(8);
    const withStatus = ['events', 'tiers', 'orders', 'tickets', 'payouts'];
    for (const list of lists) {
      const hint = withStatus.includes(list) ? " Did you mean 'status'?" : '';
      expectRefused(
        await get(`/${list}?limit=5&staus=refunded`),
        `Unknown query parameter 'staus'.${hint}`,
        'staus',
      );
    }
    expectRefused(
      await get('/orders?status=refunded&emial=a@example.com'),
      "Unknown query parameter 'emial'. Did you mean 'email'?",
      'emial',
    );
    expectRefused(
      await get('/events?Limit=5'),
      "Unknown query parameter 'Limit'. Did you mean 'limit'?",
      'Limit',
    );
    expectRefused(await get('/orders?sort=-created_at'), "Unknown query parameter 'sort'.", 'sort');
  });

  it('name each of several unknown parameters, before any bad value', async () => {
    const result = await get('/tickets?limit=abc&foo=1&bar=2');
    expect(result.status).toBe(400);
    expect(result.body.details.map((detail: { field: string }) => detail.field)).toEqual([
      'foo',
      'bar',
      'limit',
    ]);
  });

  it('are refused on a single object too: its GET takes no parameters', async () => {
    expect((await get(`/events/${eventId}`)).status).toBe(200);
    expectRefused(
      await get(`/events/${eventId}?expand=tiers`),
      "Unknown query parameter 'expand'.",
      'expand',
    );
    expectRefused(
      await get(`/webhook_endpoints/we_0000000000000000?limit=1`),
      "Unknown query parameter 'limit'.",
      'limit',
    );
  });

  it('leave the known ones as they were', async () => {
    const result = await get('/orders?status=refunded&limit=1');
    expect(result.status).toBe(200);
  });
});

describe('query values out of range', () => {
  it('refuses a page past 2^53 - 1 naming page and its range, and serves the last one', async () => {
    const message = 'page must be an integer between 1 and 9007199254740991';
    for (const page of ['9007199254740992', '9007199254740993', '99999999999999999999', '0']) {
      expectRefused(await get(`/events?page=${page}`), message, 'page');
    }
    const last = await get('/events?page=9007199254740991');
    expect(last.status, JSON.stringify(last.body)).toBe(200);
    expect(last.body).toMatchObject({ data: [], page: 9007199254740991 });
  });

  it('refuses a NUL in a text filter, naming the filter and the character', async () => {
    expectRefused(
      await get('/events?q=Harbour%00Lights'),
      'q must be text without NUL characters (%00)',
      'q',
    );
    expectRefused(
      await get('/orders?email=a%00@example.com'),
      'email must be text without NUL characters (%00)',
      'email',
    );
  });
});

function routes(router: AppRouter): AppRoute[] {
  return Object.values(router).flatMap((value) => (isAppRoute(value) ? [value] : routes(value)));
}

describe('a known path asked with a method it lacks', () => {
  it('is a 405 with Allow listing the contract’s methods of that path, each path of it', async () => {
    const byPath = new Map<string, Set<string>>();
    for (const route of routes(contract)) {
      byPath.set(route.path, (byPath.get(route.path) ?? new Set()).add(route.method));
    }
    const order = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
    for (const [path, methods] of byPath) {
      const url = `${API_BASE_PATH}${path.replace(':id', eventId)}`;
      const missing = order.filter((method) => !methods.has(method));
      for (const method of missing) {
        const result = await call(server, method, url, { key: tenant.key });
        expect(result.status, `${method} ${url}`).toBe(405);
        const allow = order.filter((known) => methods.has(known)).join(', ');
        expect(result.headers.get('allow'), `${method} ${url}`).toBe(allow);
        expect(result.body).toEqual({
          error: `method not allowed: ${method} ${url} (allowed: ${allow})`,
          code: 'method_not_allowed',
        });
      }
    }
  });

  it('is a 405 without a key too, as a trailing slash or another case of the path', async () => {
    const result = await call(server, 'DELETE', `${API_BASE_PATH}/Events/`);
    expect(result.status).toBe(405);
    expect(result.headers.get('allow')).toBe('GET, POST');
  });

  it('leaves an unknown path a 404 route_not_found', async () => {
    for (const [method, path] of [
      ['DELETE', '/venues'],
      ['GET', '/events/evt_1/tiers'],
      ['POST', '/'],
    ] as const) {
      const result = await call(server, method, `${API_BASE_PATH}${path}`, { key: tenant.key });
      expect(result.status, `${method} ${path}`).toBe(404);
      expect(result.body.code).toBe('route_not_found');
      expect(result.headers.get('allow')).toBeNull();
    }
  });
});
