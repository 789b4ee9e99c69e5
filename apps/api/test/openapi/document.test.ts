import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AppRoute } from '@ts-rest/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCursor, SIGNATURE_BYTES } from '../../src/http/cursor';
import { ERROR_CODES } from '../../src/openapi/error-codes';
import { OPERATIONS } from '../../src/openapi/operations';
import { LISTS } from '../fixtures';
import { checkedResponses, resolveRef, takeViolations } from '../response-recorder';
import { call, createTenant, useTestServer } from '../setup';

const run = promisify(execFile);
const here = import.meta.dirname;
const bin = (name: string) => path.join(here, '../../node_modules/.bin', name);

type Json = Record<string, any>;

const server = useTestServer();
let document: Json;
let workDir: string;
let documentFile: string;
beforeAll(async () => {
  const result = await call(server, 'GET', '/openapi.json');
  expect(result.status).toBe(200);
  document = result.body as Json;
  workDir = await mkdtemp(path.join(tmpdir(), 'boxoffice-openapi-'));
  documentFile = path.join(workDir, 'openapi.json');
  await writeFile(documentFile, JSON.stringify(document, null, 2));
});
afterAll(() => rm(workDir, { recursive: true, force: true }));

const operations = (): Array<[string, string, Json]> =>
  Object.entries(document.paths as Record<string, Json>).flatMap(([route, item]) =>
    Object.entries(item).map(([method, operation]): [string, string, Json] => [
      method,
      route,
      operation as Json,
    ]),
  );

const resolve = (node: Json): Json => resolveRef(document, node);

describe('the OpenAPI document', () => {
  it('has one operation per route of the contract, with the id the contract gives it', () => {
    const expected = OPERATIONS.map(
      ([key, route]) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')} ${key}`,
    ).sort();
    const found = operations()
      .map(
        ([method, route, operation]) => `${method.toUpperCase()} ${route} ${operation.operationId}`,
      )
      .sort();
    expect(found).toEqual(expected);
    expect(found).toHaveLength(33);
    expect(JSON.stringify(document)).not.toContain('"nullable"');
  });

  it('passes Redocly (recommended) with no error or warning', async () => {
    const result = await run(
      bin('redocly'),
      ['lint', documentFile, '--config', path.join(here, 'redocly.yaml'), '--format', 'json'],
      {
        maxBuffer: 16 * 1024 * 1024,
        // Redocly reports usage and looks for updates over the network unless told not to.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    ).catch((error: { stdout: string }) => error);
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: unknown[];
    };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('passes Spectral (spectral:oas) with no error or warning', async () => {
    const result = await run(
      bin('spectral'),
      [
        'lint',
        documentFile,
        '--ruleset',
        path.join(here, '.spectral.yaml'),
        '--format',
        'json',
        '--quiet',
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout: string }) => error);
    expect(JSON.parse(result.stdout || '[]')).toEqual([]);
  });

  it('serves an absolute server URL for the host asked, and a relative one for an odd Host', async () => {
    expect(document.servers).toEqual([
      { url: `${server.baseUrl}/api/v1`, description: 'This server' },
    ]);
    // fetch() does not let a caller choose `Host`; node:http does.
    const ask = (host: string, etag?: string) =>
      new Promise<{ status: number; etag: string; body: Json | undefined }>((resolve, reject) => {
        const request = httpRequest(
          `${server.baseUrl}/openapi.json`,
          { headers: { host, ...(etag && { 'if-none-match': etag }) } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              const text = Buffer.concat(chunks).toString();
              resolve({
                status: response.statusCode!,
                etag: String(response.headers.etag),
                body: text ? (JSON.parse(text) as Json) : undefined,
              });
            });
          },
        );
        request.on('error', reject);
        request.end();
      });
    const proxied = await ask('api.example.com:8443');
    expect(proxied.body!.servers[0].url).toBe('http://api.example.com:8443/api/v1');
    const local = await ask(new URL(server.baseUrl).host);
    expect(proxied.etag).not.toBe(local.etag);
    expect((await ask('api.example.com:8443', proxied.etag)).status).toBe(304);
    expect((await ask('evil"host')).body!.servers[0].url).toBe('/api/v1');
    // The code samples call the same address.
    const samples = JSON.stringify(proxied.body!.paths['/events'].get['x-codeSamples']);
    expect(samples).toContain('http://api.example.com:8443/api/v1/events');
    expect(JSON.stringify(proxied.body)).not.toContain('{{server_url}}');
  });

  it('names every resource, body and list as a component, each field described', () => {
    const schemas = document.components.schemas as Record<string, Json>;
    for (const name of [
      'Event',
      'Tier',
      'Order',
      'Ticket',
      'Attendee',
      'Checkin',
      'Payout',
      'WebhookEndpoint',
    ]) {
      expect(schemas[name], name).toBeDefined();
      expect(schemas[`${name}List`], `${name}List`).toBeDefined();
    }
    for (const [method, route, operation] of operations()) {
      const success = Object.entries(operation.responses as Record<string, Json>).find(([s]) =>
        s.startsWith('2'),
      )!;
      // An export's file is text, not JSON.
      if (operation.operationId === 'exports.file') {
        expect(Object.keys(success[1].content)).toEqual(['application/x-ndjson', 'text/csv']);
        continue;
      }
      const schema = success[1].content['application/json'].schema as Json;
      // An object, a list, or the results of a batch: `data` of named items.
      const named =
        schema.$ref ?? schema.properties?.data?.$ref ?? schema.properties?.data?.items?.$ref;
      expect(named, `${method} ${route}`).toMatch(/^#\/components\/schemas\//);
      if (operation.requestBody) {
        // Required, but for an advance of a test payout, whose one field is optional.
        expect(operation.requestBody.required, `${method} ${route}`).toBe(
          operation.operationId !== 'testHelpers.advancePayout',
        );
        expect(operation.requestBody.content['application/json'].schema.$ref).toMatch(
          /^#\/components\/schemas\//,
        );
      }
    }
    const undescribed: string[] = [];
    for (const [name, schema] of Object.entries(schemas)) {
      const variants = [schema, ...((schema.oneOf as Json[] | undefined) ?? [])];
      for (const variant of variants) {
        for (const [field, property] of Object.entries(
          (variant.properties ?? {}) as Record<string, Json | boolean>,
        )) {
          if (typeof property === 'boolean') continue;
          if (
            !property.description &&
            !(property.anyOf as Json[] | undefined)?.some((p) => p.$ref)
          ) {
            undescribed.push(`${name}.${field}`);
          }
        }
      }
    }
    expect(undescribed).toEqual([]);
  });

  it('states the rules a client can check: enums, formats and exactly one of ticket_id and code', () => {
    const parameter = (route: string, name: string) =>
      (document.paths[route].get.parameters as Json[]).find((p) => p.name === name)!;
    const status = parameter('/events', 'status');
    expect(status).toMatchObject({ style: 'form', explode: false, schema: { type: 'array' } });
    expect(resolve(status.schema.items).enum).toEqual([
      'draft',
      'published',
      'completed',
      'cancelled',
    ]);
    expect(resolve(parameter('/checkins', 'direction').schema.items).enum).toEqual([
      'entry',
      'exit',
    ]);
    const create = document.components.schemas.EventCreate;
    expect(create.properties.currency).toMatchObject({ pattern: '^[A-Z]{3}$' });
    expect(create.properties.timezone.pattern).toEqual(expect.any(String));
    expect(create.required).toEqual(
      expect.arrayContaining(['name', 'starts_at', 'ends_at', 'currency', 'timezone']),
    );
    const checkin = document.components.schemas.CheckinCreate;
    expect(checkin.oneOf.map((variant: Json) => variant.required)).toEqual([
      ['ticket_id'],
      ['code'],
    ]);
    expect(checkin.oneOf[0].properties).not.toHaveProperty('code');
    expect(checkin.oneOf[1].properties).not.toHaveProperty('ticket_id');
    expect(checkin.oneOf.map((variant: Json) => variant.additionalProperties)).toEqual([
      false,
      false,
    ]);
  });

  it('declares the headers, the Idempotency-Key and the scope of every operation', () => {
    const schemes = document.components.securitySchemes as Record<string, Json>;
    const routes = new Map<string, AppRoute>(OPERATIONS);
    for (const [method, route, operation] of operations()) {
      const where = `${method} ${route}`;
      const scope = (routes.get(operation.operationId)!.metadata as { scope: string }).scope;
      const [scheme] = Object.keys(operation.security[0]);
      expect(schemes[scheme!]!.description, where).toContain(`\`${scope}\``);
      expect(operation.description, where).toContain(`\`${scope}\` scope`);
      const parameters = (operation.parameters as Json[]).map((p) => resolve(p).name);
      expect(parameters.includes('Idempotency-Key'), where).toBe(method === 'post');
      for (const [status, response] of Object.entries(
        operation.responses as Record<string, Json>,
      )) {
        const headers = resolve(response).headers as Record<string, Json>;
        expect(Object.keys(headers), `${where} ${status}`).toContain('X-Request-Id');
        if (status.startsWith('2')) {
          expect(Object.keys(headers), where).toEqual(
            expect.arrayContaining([
              'X-RateLimit-Limit',
              'X-RateLimit-Remaining',
              'X-RateLimit-Reset',
            ]),
          );
        }
        if (['429', '503'].includes(status)) expect(Object.keys(headers)).toContain('Retry-After');
      }
      expect(Object.keys(operation.responses), where).toEqual(
        expect.arrayContaining([
          '400',
          '401',
          '402',
          '403',
          '408',
          '417',
          '429',
          '431',
          '500',
          '503',
        ]),
      );
      if (operation.requestBody) expect(Object.keys(operation.responses), where).toContain('413');
      expect(operation['x-codeSamples'].length, where).toBeGreaterThan(0);
      expect(operation.description, where).toBeTruthy();
    }
    expect(Object.keys(document.paths['/events'].get.responses['200'].headers)).toContain('Link');
  });

  it('lists the error codes of each status, each one known', () => {
    const known = new Set(Object.keys(ERROR_CODES));
    for (const [method, route, operation] of operations()) {
      for (const [status, response] of Object.entries(
        operation.responses as Record<string, Json>,
      )) {
        if (status.startsWith('2')) continue;
        const schema = resolve(response).content['application/json'].schema as Json;
        const codes = schema.allOf[1].properties.code.enum as string[];
        expect(codes.length, `${method} ${route} ${status}`).toBeGreaterThan(0);
        for (const code of codes) {
          expect(known.has(code)).toBe(true);
          expect(ERROR_CODES[code]!.status).toBe(Number(status));
          expect(resolve(response).description).toContain(`\`${code}\``);
        }
      }
    }
    const conflicts =
      document.paths['/checkins'].post.responses['409'].content['application/json'].schema;
    expect(conflicts.allOf[1].properties.code.enum).toEqual(
      expect.arrayContaining(['already_checked_in', 'not_checked_in', 'ticket_void']),
    );
  });

  it('documents cursors on every list: the parameter and next_cursor, each with an example', () => {
    for (const list of LISTS) {
      const operation = document.paths[`/${list}`].get;
      const cursor = operation.parameters.find((p: { name: string }) => p.name === 'cursor');
      expect(cursor.schema, list).toMatchObject({ type: 'string', example: expect.any(String) });
      expect(cursor.description ?? cursor.schema.description).toMatch(/next_cursor/);
      const envelope = resolve(operation.responses['200'].content['application/json'].schema);
      expect(envelope.required).toEqual(
        expect.arrayContaining([
          'data',
          'total',
          'page',
          'limit',
          'next_cursor',
          'sync_checkpoint',
        ]),
      );
      expect(envelope.properties.next_cursor).toMatchObject({
        type: ['string', 'null'],
        example: expect.any(String),
      });
      expect(envelope.properties.sync_checkpoint.description).toMatch(/updated_since/);
      expect(operation.description).toMatch(/next_cursor/);
    }
  });

  it('documents query parameters with their wire types', () => {
    const parameters = document.paths['/attendees'].get.parameters as Json[];
    const schemaOf = (name: string) => parameters.find((p) => p.name === name)?.schema;
    expect(schemaOf('limit')).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    expect(schemaOf('checked_in')).toEqual({ type: 'boolean' });
    expect(schemaOf('updated_since')).toEqual({ type: 'string', format: 'date-time' });
    expect(schemaOf('email')).toMatchObject({ type: 'string', maxLength: 320 });
  });

  it('describes what each webhook event type delivers', () => {
    const webhook = document.webhooks['checkin.created'].post;
    const schema = webhook.requestBody.content['application/json'].schema;
    expect(schema.allOf[1].properties.data.properties.object.$ref).toBe(
      '#/components/schemas/Checkin',
    );
  });
});

/** Every schema of the document (components, parameters, bodies, responses), with where it is. */
function schemasIn(node: unknown, where = '#', inSchema = false): Array<[string, unknown]> {
  if (Array.isArray(node)) {
    return node.flatMap((inner, i) => schemasIn(inner, `${where}/${i}`, inSchema));
  }
  if (!node || typeof node !== 'object') return [];
  const found: Array<[string, unknown]> = [];
  for (const [key, inner] of Object.entries(node as Json)) {
    const at = `${where}/${key}`;
    if (key === 'example' || key === 'examples') continue;
    if (inSchema && ['properties', 'patternProperties', '$defs'].includes(key)) {
      for (const [name, schema] of Object.entries((inner ?? {}) as Json)) {
        found.push([`${at}/${name}`, schema], ...schemasIn(schema, `${at}/${name}`, true));
      }
    } else if (inSchema && ['items', 'not', 'additionalProperties', 'contains'].includes(key)) {
      found.push([at, inner], ...schemasIn(inner, at, true));
    } else if (inSchema && ['oneOf', 'anyOf', 'allOf', 'prefixItems'].includes(key)) {
      (inner as unknown[]).forEach((schema, i) => {
        found.push([`${at}/${i}`, schema], ...schemasIn(schema, `${at}/${i}`, true));
      });
    } else if (key === 'schema' || (where === '#/components/schemas' && !inSchema)) {
      found.push([at, inner], ...schemasIn(inner, at, true));
    } else {
      found.push(...schemasIn(inner, at, inSchema));
    }
  }
  return found;
}

describe('the document as code generators read it', () => {
  it('has no boolean schema but `additionalProperties: false` (openapi-python-client refuses them)', () => {
    const all = schemasIn(document);
    expect(all.length).toBeGreaterThan(500);
    const booleans = all
      .filter(
        ([where, schema]) =>
          typeof schema === 'boolean' && !where.endsWith('/additionalProperties'),
      )
      .map(([where]) => where);
    expect(booleans).toEqual([]);
  });

  it('has only patterns that ECMA-262 (with and without `u`) and Python read, none over surrogates', async () => {
    const patterns = [
      ...new Set(
        schemasIn(document).flatMap(([, schema]) =>
          schema && typeof schema === 'object' && typeof (schema as Json).pattern === 'string'
            ? [(schema as Json).pattern as string]
            : [],
        ),
      ),
    ];
    expect(patterns).toContain('^[^\\x00]*$');
    for (const pattern of patterns) {
      expect(() => new RegExp(pattern), pattern).not.toThrow();
      expect(() => new RegExp(pattern, 'u'), pattern).not.toThrow();
      // Escapes that mean other things (or nothing) outside ECMA-262: code points, classes, names.
      expect(pattern, pattern).not.toMatch(/\\u|\\p\{|\\P\{|\(\?</);
    }
    // Python's `re` (Schemathesis, openapi-python-client) where the machine has Python.
    const compiled = await run('python3', [
      '-c',
      'import json, re, sys\nfor p in json.loads(sys.argv[1]): re.compile(p)\nprint("ok")',
      JSON.stringify(patterns),
    ]).catch((error: { code?: unknown; stderr?: string }) => {
      if (error.code === 'ENOENT') return undefined;
      throw new Error(`Python refused a pattern: ${error.stderr ?? ''}`);
    });
    if (compiled) expect(compiled.stdout.trim()).toBe('ok');
  });

  it('declares no default a client would send against the server: page has none (not with cursor)', () => {
    for (const list of [...LISTS, 'webhook_endpoints']) {
      const page = (document.paths[`/${list}`].get.parameters as Json[]).find(
        (p) => p.name === 'page',
      )!;
      expect(page.schema, list).toEqual({
        type: 'integer',
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
      });
    }
  });

  it('gives cursor examples of the form the server issues', () => {
    const text = JSON.stringify(document);
    const cursors = [...text.matchAll(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g)].map(
      ([found]) => found,
    );
    expect(cursors.length).toBeGreaterThan(LISTS.length);
    for (const cursor of new Set(cursors)) {
      expect(() => readCursor(cursor), cursor).not.toThrow();
      expect(Buffer.from(cursor.split('.')[1]!, 'base64url')).toHaveLength(SIGNATURE_BYTES);
    }
  });

  it('types the `details` of a validation error, and the webhook url as a URI', () => {
    const schemas = document.components.schemas as Record<string, Json>;
    expect(schemas.Error!.properties.details).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/ErrorDetail' },
    });
    expect(schemas.ErrorDetail).toMatchObject({
      type: 'object',
      properties: { field: { type: 'string' }, message: { type: 'string' } },
      required: ['field', 'message'],
    });
    for (const name of ['WebhookEndpoint', 'WebhookEndpointCreate', 'WebhookEndpointUpdate']) {
      expect(schemas[name]!.properties.url.format, name).toBe('uri');
    }
  });

  it('declares X-Request-Id without constraints the server does not enforce, saying what it does', () => {
    const parameter = document.components.parameters.RequestId as Json;
    expect(parameter.schema).toEqual({ type: 'string' });
    expect(parameter.description).toMatch(/replaced/);
  });
});

describe('a client generated from the document alone (@hey-api/openapi-ts)', () => {
  let outDir: string;
  beforeAll(async () => {
    outDir = path.join(workDir, 'hey-api');
    await run(
      bin('openapi-ts'),
      ['-i', documentFile, '-o', outDir, '-p', '@hey-api/typescript', '@hey-api/sdk'],
      { maxBuffer: 16 * 1024 * 1024 },
    );
  }, 120_000);

  it('compiles, with a function for every operation', async () => {
    await writeFile(
      path.join(outDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        },
        include: ['**/*.ts'],
      }),
    );
    const result = await run(bin('tsc'), ['-p', path.join(outDir, 'tsconfig.json')]).catch(
      (error: { stdout: string }) => error,
    );
    expect(result.stdout).toBe('');
    const sdk = (await import(path.join(outDir, 'sdk.gen.ts'))) as Record<string, unknown>;
    for (const [key] of OPERATIONS) {
      const name = key.replace(/\.(\w)/, (_m, first: string) => first.toUpperCase());
      expect(typeof sdk[name], key).toBe('function');
    }
  }, 120_000);

  it('calls the real server: a create and a list, with a page and a cursor', async () => {
    const tenant = await createTenant();
    const sdk = (await import(path.join(outDir, 'sdk.gen.ts'))) as Record<
      string,
      (options?: Json) => Promise<{ data?: Json; error?: Json; response: Response }>
    >;
    const { createClient } = (await import(path.join(outDir, 'client', 'index.ts'))) as {
      createClient: (config: Json) => unknown;
    };
    const client = createClient({
      baseUrl: document.servers[0].url,
      headers: { Authorization: `Bearer ${tenant.key}` },
    });
    for (const name of ['First', 'Second']) {
      const created = await sdk.eventsCreate!({
        client,
        body: {
          name,
          timezone: 'Europe/London',
          starts_at: '2027-06-01T19:00:00+01:00',
          ends_at: '2027-06-01T23:00:00+01:00',
          currency: 'GBP',
        },
      });
      expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    }
    const first = await sdk.eventsList!({ client, query: { limit: 1, page: 1 } });
    expect(first.response.status, JSON.stringify(first.error)).toBe(200);
    const next = await sdk.eventsList!({
      client,
      query: { limit: 1, cursor: first.data!.next_cursor },
    });
    expect(next.response.status, JSON.stringify(next.error)).toBe(200);
    expect([...first.data!.data, ...next.data!.data].map((event: Json) => event.name)).toEqual([
      'First',
      'Second',
    ]);
    const refused = await sdk.eventsList!({ client, query: { limit: 1, staus: 'draft' } });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({
      code: 'validation_failed',
      details: [
        { field: 'staus', message: "Unknown query parameter 'staus'. Did you mean 'status'?" },
      ],
    });
  });
});

describe('the check of every test response against the document', () => {
  it('reports an undocumented status, a body off its schema and a missing header', async () => {
    const answer =
      (status: number, body: unknown, headers: Record<string, string> = {}): RequestListener =>
      (_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
    const cases: Array<[RequestListener, string, RegExp]> = [
      [answer(418, { error: 'teapot', code: 'teapot' }), '/api/v1/events', /status not documented/],
      [
        answer(200, { data: [{ id: 1 }] }, { 'x-request-id': 'r' }),
        '/api/v1/events',
        /header X-RateLimit-Limit missing|body does not match/,
      ],
      [
        answer(409, { error: 'x', code: 'sold_out' }, { 'x-request-id': 'r' }),
        '/api/v1/checkins',
        /body does not match/,
      ],
    ];
    for (const [handler, url, expected] of cases) {
      const fake = createServer(checkedResponses(handler));
      await new Promise<void>((done) => fake.listen(0, '127.0.0.1', done));
      const { port } = fake.address() as AddressInfo;
      await fetch(`http://127.0.0.1:${port}${url}`, {
        method: url.endsWith('checkins') ? 'POST' : 'GET',
      });
      await new Promise<void>((done) => fake.close(() => done()));
      const found = await takeViolations();
      expect(found.join('\n'), url).toMatch(expected);
    }
  });
});

describe('a client generated from the document alone (openapi-typescript + openapi-fetch)', () => {
  const clientDir = path.join(here, 'generated-client');
  beforeAll(async () => {
    await run(bin('openapi-typescript'), [
      documentFile,
      '-o',
      path.join(clientDir, 'schema.generated.d.ts'),
    ]);
  }, 60_000);

  it('type-checks a program calling every operation, and refuses each invalid call', async () => {
    // invalid.ts marks every call with @ts-expect-error: a call that compiled would be an error.
    const result = await run(bin('tsc'), ['-p', path.join(clientDir, 'tsconfig.json')]).catch(
      (error: { stdout: string }) => error,
    );
    expect(result.stdout).toBe('');
  }, 60_000);

  it('the valid program calls every operation of the document', async () => {
    const { readFile } = await import('node:fs/promises');
    const program = await readFile(path.join(clientDir, 'valid.ts'), 'utf8');
    for (const [method, route] of operations()) {
      expect(program, `${method} ${route}`).toContain(`client.${method.toUpperCase()}('${route}'`);
    }
  });
});
