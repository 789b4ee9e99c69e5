import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRateLimits, type RateLimits } from '../src/http/rate-limit';
import { SERVER_URL_PLACEHOLDER } from '../src/openapi/server-url';
import { eventInput } from './fixtures';
import {
  call,
  createTenant,
  readAndWriteEvents,
  startTestServer,
  useOfflineTestServer,
  useTestServer,
  type CallResult,
  type TestTenant,
} from './setup';

const JSON_TYPE = 'application/json; charset=utf-8';

const server = useTestServer();

const eventBody = eventInput('HTTP check');

function expectJsonError(result: CallResult, status: number, message?: string | RegExp) {
  expect(result.status, JSON.stringify(result.body)).toBe(status);
  expect(result.headers.get('content-type')).toBe(JSON_TYPE);
  expect(typeof result.body.error).toBe('string');
  if (typeof message === 'string') expect(result.body.error).toBe(message);
  else if (message) expect(result.body.error).toMatch(message);
}

describe('unknown routes', () => {
  it.each([
    ['GET', '/api/v1/foo', 'route not found: GET /api/v1/foo'],
    ['GET', '/api/v1/foo?page=2', 'route not found: GET /api/v1/foo'],
    ['GET', '/foo', 'route not found: GET /foo'],
    ['POST', '/', 'route not found: POST /'],
    ['GET', '/api/v2/events', 'route not found: GET /api/v2/events'],
    ['OPTIONS', '/healthz', 'route not found: OPTIONS /healthz'],
  ])('%s %s is a JSON 404', async (method, path, message) => {
    const tenant = await createTenant();
    const result = await call(server, method, path, { key: tenant.key });
    expectJsonError(result, 404, message);
    expect(result.headers.get('x-request-id')).toBeTruthy();
  });

  it.each([
    ['DELETE', '/api/v1/events', 'GET, POST'],
    ['PUT', '/api/v1/events/evt_0000000000000000000000', 'GET, PATCH'],
    ['DELETE', '/api/v1/checkins/chk_0000000000000000000000', 'GET'],
    ['POST', '/api/v1/tickets', 'GET'],
    ['PATCH', '/api/v1/orders/ord_0000000000000000000000', 'GET'],
    ['OPTIONS', '/api/v1/events', 'GET, POST'],
    ['OPTIONS', '/api/v1/checkins/chk_0000000000000000000000', 'GET'],
  ])(
    '%s %s, a path known for other methods, is a JSON 405 with Allow',
    async (method, path, allow) => {
      const tenant = await createTenant();
      const result = await call(server, method, path, { key: tenant.key });
      expectJsonError(result, 405, `method not allowed: ${method} ${path} (allowed: ${allow})`);
      expect(result.body.code).toBe('method_not_allowed');
      expect(result.headers.get('allow')).toBe(allow);
      expect(result.headers.get('x-request-id')).toBeTruthy();
    },
  );

  it('is a 404 also without a key', async () => {
    expectJsonError(
      await call(server, 'GET', '/api/v1/foo'),
      404,
      'route not found: GET /api/v1/foo',
    );
  });
});

describe('request bodies', () => {
  /** `rawBody` sent as a new event, with this Content-Type. */
  const postRaw = (
    tenant: TestTenant,
    rawBody: string | Buffer,
    contentType = 'application/json',
  ) =>
    call(server, 'POST', '/api/v1/events', {
      key: tenant.key,
      rawBody,
      headers: { 'content-type': contentType },
    });
  /** The refused bodies stored nothing: the organisation has no events. */
  const expectNoEvents = async (tenant: TestTenant) => {
    const list = await call(server, 'GET', '/api/v1/events', { key: tenant.key });
    expect(list.body.total).toBe(0);
  };

  it('answers malformed JSON with a JSON 400', async () => {
    const tenant = await createTenant();
    for (const rawBody of ['{"name": ', "{'name': 'x'}", 'not json', '{"a":1}}']) {
      const result = await postRaw(tenant, rawBody);
      expectJsonError(result, 400, 'request body is not valid JSON');
    }
  });

  it('answers a body that is JSON but not an object with a JSON 400', async () => {
    const tenant = await createTenant();
    for (const rawBody of ['[]', '"text"', '42', 'null']) {
      const result = await postRaw(tenant, rawBody);
      expectJsonError(result, 400);
    }
  });

  it('refuses bodies nested deeper than 32 levels before walking them, with or without a key', async () => {
    const tenant = await createTenant();
    const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    for (const headers of [{}, { 'idempotency-key': 'deep-body' }] as Record<string, string>[]) {
      for (const [method, path] of [
        ['POST', '/api/v1/checkins'],
        ['POST', '/api/v1/events'],
        ['PATCH', '/api/v1/events/evt_0000000000000000000000'],
      ]) {
        const result = await call(server, method!, path!, {
          key: tenant.key,
          rawBody: `{"name":${deep(20_000)}}`,
          headers: { 'content-type': 'application/json', ...headers },
        });
        expectJsonError(
          result,
          400,
          'request body nests arrays or objects more than 32 levels deep',
        );
        expect(result.body.code).toBe('body_too_deep');
      }
    }
    // Within the limit, the body reaches validation, which names the field.
    const shallow = await call(server, 'POST', '/api/v1/checkins', {
      key: tenant.key,
      rawBody: `{"code":${deep(31)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(shallow.status).toBe(400);
    expect(shallow.body.code).toBe('validation_failed');
  });

  it('answers another Content-Type on POST and PATCH with a JSON 400', async () => {
    const tenant = await createTenant();
    for (const [method, path] of [
      ['POST', '/api/v1/events'],
      ['PATCH', '/api/v1/events/evt_0000000000000000000000'],
      ['POST', '/api/v1/checkins'],
    ]) {
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
      ]) {
        const result = await call(server, method!, path!, {
          key: tenant.key,
          rawBody: JSON.stringify(eventBody),
          headers: { 'content-type': type },
        });
        expectJsonError(result, 400, /Content-Type/);
      }
    }
    const missing = await postRaw(tenant, JSON.stringify(eventBody), '');
    expectJsonError(missing, 400);
    await expectNoEvents(tenant);
  });

  it('accepts application/json with a charset', async () => {
    const tenant = await createTenant();
    const result = await postRaw(
      tenant,
      JSON.stringify(eventBody),
      'application/json; charset=utf-8',
    );
    expect(result.status, JSON.stringify(result.body)).toBe(201);
  });

  it('refuses bytes that are not UTF-8, and other charsets, storing nothing', async () => {
    const tenant = await createTenant();
    const json = Buffer.from(JSON.stringify({ ...eventBody, name: 'bad XX' }));
    // "XX" becomes 0xff 0xfe: never valid in UTF-8.
    const invalid = Buffer.from(json);
    invalid.set([0xff, 0xfe], json.indexOf('XX'));
    const result = await postRaw(tenant, invalid);
    expectJsonError(result, 400, 'request body is not valid UTF-8');
    expect(result.body.code).toBe('invalid_encoding');

    const latin1 = await postRaw(
      tenant,
      JSON.stringify(eventBody),
      'application/json; charset=iso-8859-1',
    );
    expectJsonError(latin1, 400, 'request body must be UTF-8 encoded JSON');
    expect(latin1.body.code).toBe('unsupported_encoding');
    await expectNoEvents(tenant);
  });

  it('refuses a body that starts with a byte order mark as JSON that does not parse', async () => {
    const tenant = await createTenant();
    const result = await postRaw(
      tenant,
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(eventBody))]),
    );
    expectJsonError(result, 400, 'request body is not valid JSON');
    expect(result.body.code).toBe('malformed_json');
    await expectNoEvents(tenant);
  });

  it('answers a body over 100 kB with a JSON 413', async () => {
    const tenant = await createTenant();
    const body = { ...eventBody, description: 'x'.repeat(101 * 1024) };
    const result = await call(server, 'POST', '/api/v1/events', { key: tenant.key, body });
    expectJsonError(result, 413);
    // Just under the limit the body is read (and then judged on its fields).
    const fits = await call(server, 'POST', '/api/v1/events', {
      key: tenant.key,
      body: { ...eventBody, description: 'x'.repeat(90 * 1024) },
    });
    expect(fits.status).not.toBe(413);
  });

  it('applies a configured body limit', async () => {
    const small = await startTestServer({ bodyLimitBytes: 1024 });
    try {
      const tenant = await createTenant();
      const body = { ...eventBody, description: 'x'.repeat(2048) };
      expectJsonError(await call(small, 'POST', '/api/v1/events', { key: tenant.key, body }), 413);
      const fits = await call(small, 'POST', '/api/v1/events', {
        key: tenant.key,
        body: eventBody,
      });
      expect(fits.status).toBe(201);
    } finally {
      await small.close();
    }
  });
});

describe('every response', () => {
  it('is JSON with a request id', async () => {
    const tenant = await createTenant();
    const requests: [string, string, Parameters<typeof call>[3]][] = [
      ['GET', '/healthz', {}],
      ['GET', '/readyz', {}],
      ['GET', '/openapi.json', {}],
      ['GET', '/nowhere', {}],
      ['GET', '/api/v1/events', {}],
      ['GET', '/api/v1/events', { key: tenant.key }],
      ['GET', '/api/v1/events?limit=500', { key: tenant.key }],
      ['GET', '/api/v1/events/evt_0000000000000000000000', { key: tenant.key }],
      ['POST', '/api/v1/events', { key: tenant.key, body: eventBody }],
      ['POST', '/api/v1/events', { key: tenant.key, body: {} }],
      [
        'POST',
        '/api/v1/events',
        { key: tenant.key, rawBody: '{', headers: { 'content-type': 'application/json' } },
      ],
    ];
    const ids = new Set<string>();
    for (const [method, path, options] of requests) {
      const result = await call(server, method, path, options);
      const label = `${method} ${path} → ${result.status}`;
      expect(result.headers.get('content-type'), label).toBe(JSON_TYPE);
      expect(typeof result.body, label).toBe('object');
      const id = result.headers.get('x-request-id');
      expect(id, label).toMatch(/^\S{8,}$/);
      ids.add(id!);
    }
    expect(ids.size).toBe(requests.length);
  });

  it('echoes the caller’s X-Request-Id', async () => {
    const tenant = await createTenant();
    for (const [method, path, key] of [
      ['GET', '/api/v1/events', tenant.key],
      ['GET', '/api/v1/events', undefined],
      ['GET', '/api/v1/foo', undefined],
      ['GET', '/healthz', undefined],
    ] as const) {
      const result = await call(server, method, path, {
        key,
        headers: { 'x-request-id': 'trace-4711.abc' },
      });
      expect(result.headers.get('x-request-id'), path).toBe('trace-4711.abc');
    }
  });
});

describe('outside /api/v1', () => {
  it('GET /healthz is 200', async () => {
    const result = await call(server, 'GET', '/healthz');
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz is 200 with its checks', async () => {
    const result = await call(server, 'GET', '/readyz');
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      status: 'ready',
      checks: { database: 'ok', rate_limit_store: 'ok' },
    });
  });

  it('GET /docs renders the reference as HTML', async () => {
    const response = await fetch(`${server.baseUrl}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain('/openapi.json');
  });

  it('GET /openapi.json serves the document the build wrote, with this server as its server', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'boxoffice-openapi-'));
    const file = path.join(dir, 'openapi.json');
    await writeFile(
      file,
      JSON.stringify({ openapi: '3.1.0', servers: [{ url: SERVER_URL_PLACEHOLDER }] }),
    );
    const built = await startTestServer({ openApiFile: file });
    try {
      const response = await fetch(`${built.baseUrl}/openapi.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(JSON_TYPE);
      expect(await response.json()).toEqual({
        openapi: '3.1.0',
        servers: [{ url: `${built.baseUrl}/api/v1` }],
      });
    } finally {
      await built.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('unexpected errors', () => {
  it('answer 500 with a request id and nothing internal', async () => {
    const rateLimits: RateLimits = {
      ...createRateLimits({ readsPerMinute: 60, writesPerMinute: 10 }),
      consume: () => {
        throw new Error('select secret_column from api_keys where boom');
      },
    };
    const broken = await startTestServer({ rateLimits });
    try {
      const tenant = await createTenant();
      const result = await call(broken, 'GET', '/api/v1/events', {
        key: tenant.key,
        headers: { 'x-request-id': 'trace-500' },
      });
      expectJsonError(result, 500, 'Internal server error');
      expect(result.body.request_id).toBe('trace-500');
      expect(result.headers.get('x-request-id')).toBe('trace-500');
      const text = JSON.stringify(result.body);
      for (const leak of ['secret_column', 'select', 'at ', 'stack', '.ts']) {
        expect(text).not.toContain(leak);
      }
      const generated = await call(broken, 'POST', '/api/v1/events', {
        key: tenant.key,
        body: eventBody,
      });
      expectJsonError(generated, 500, 'Internal server error');
      expect(generated.body.request_id).toBe(generated.headers.get('x-request-id'));
    } finally {
      await broken.close();
    }
  });
});

describe('database unreachable', () => {
  const offline = useOfflineTestServer();

  it('answers API requests with a fast 503 and Retry-After', async () => {
    const tenant = await createTenant();
    for (const result of await readAndWriteEvents(offline, tenant, eventBody)) {
      expectJsonError(result, 503, 'Service temporarily unavailable');
      expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(result.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('reports not ready, while /healthz stays up', async () => {
    const started = performance.now();
    const ready = await call(offline, 'GET', '/readyz');
    expect(performance.now() - started).toBeLessThan(3000);
    expectJsonError(ready, 503);
    expect(ready.body.checks).toEqual({ database: 'unavailable', rate_limit_store: 'ok' });
    expect(Number(ready.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await call(offline, 'GET', '/healthz')).status).toBe(200);
  });
});
