import type { AppRoute } from '@ts-rest/core';
import { generateSchema } from '@anatine/zod-openapi';
import * as schemas from '@boxoffice/contract';
import {
  contract,
  CURSOR_EXAMPLE,
  rateLimitClassOf,
  TEXT_PATTERN,
  TEXT_WIRE_PATTERN,
  type RouteMetadata,
} from '@boxoffice/contract';
import type { ZodTypeAny } from 'zod';
import { errorCodesOf, ERROR_CODES, type OperationFacts } from './error-codes';
import { errorExamples, operationExamples } from './examples';
import { FIELD_DOCS } from './field-docs';
import { codeSamples, referenceGuides } from './guides';
import { OPERATIONS, type OperationKey } from './operations';
import { SERVER_URL_PLACEHOLDER } from './server-url';

type Json = Record<string, unknown>;

const isZod = (value: unknown): value is ZodTypeAny =>
  typeof value === 'object' && value !== null && '_def' in value && 'safeParse' in value;

/** A value the contract and this file's tables always hold: a miss is a mistake here, named. */
function required<T>(value: T | undefined, missing: string): T {
  if (value === undefined) throw new Error(`OpenAPI document: ${missing}`);
  return value;
}

const REASONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  402: 'Payment required',
  403: 'Forbidden',
  404: 'Not found',
  408: 'Request timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content too large',
  416: 'Range not satisfiable',
  417: 'Expectation failed',
  422: 'Unprocessable content',
  429: 'Too many requests',
  431: 'Request header fields too large',
  500: 'Internal server error',
  503: 'Service unavailable',
};

/** Statuses the HTTP layer answers before a route is chosen: any operation can get them. */
const PROTOCOL_STATUSES = [408, 417, 431];

// ---------------------------------------------------------------------------
// Named schemas: every schema the contract exports under a name, plus one list envelope per list,
// become components; the same schema written out inline is replaced by a reference to it.

interface Component {
  name: string;
  /** The contract's export, for its fields' JSDoc. */
  exportName?: string;
  schema: Json;
}

/** Exports that are building blocks of parameters, not types a client names. */
const UNNAMED =
  /^(Timestamp|Date|Currency|TimeZone|Money|Text|IdPath|PaginationQuery|NoQuery)Schema$|ListQuerySchema$/;

/** A JSON value with its object keys sorted: equal schemas give equal keys. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Json).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );

const capitalised = (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;

/** `events.list` → `events`; `checkin.created` → `checkin`. */
const beforeDot = (name: string) => name.split('.', 1)[0] ?? name;

/** `webhookEndpoints` → `WebhookEndpoint`. */
const itemName = (router: string) => capitalised(router.slice(0, -1));

function components(): Component[] {
  const found: Component[] = [];
  const add = (name: string, zod: ZodTypeAny, output: boolean, exportName?: string) => {
    if (found.some((component) => component.name === name)) return;
    found.push({ name, exportName, schema: generateSchema(zod, output) as Json });
  };
  // List envelopes first: a list's schema is matched before the item inside it.
  for (const [key, route] of OPERATIONS) {
    if (route.method === 'GET' && !route.path.endsWith('/:id')) {
      add(`${itemName(beforeDot(key))}List`, route.responses[200] as ZodTypeAny, true);
    }
  }
  for (const [exportName, value] of Object.entries(schemas)) {
    if (!exportName.endsWith('Schema') || UNNAMED.test(exportName) || !isZod(value)) continue;
    // Request bodies are documented as sent, responses as received.
    const input = /Create|Update/.test(exportName);
    add(exportName.slice(0, -'Schema'.length), value, !input, exportName);
  }
  return found;
}

/** Replaces each inline copy of a component with a reference, outermost first. */
function referTo(node: unknown, byShape: Map<string, string>, root = true): unknown {
  if (Array.isArray(node)) return node.map((inner) => referTo(inner, byShape, false));
  if (!node || typeof node !== 'object') return node;
  const name = root ? undefined : byShape.get(canonical(node));
  if (name) return { $ref: `#/components/schemas/${name}` };
  return Object.fromEntries(
    Object.entries(node as Json).map(([key, inner]) => [key, referTo(inner, byShape, false)]),
  );
}

/** Sets each property's description from the contract's JSDoc (`a.b` for nested fields). */
function describeFields(schema: Json, docs: Readonly<Record<string, string>>, prefix = ''): void {
  const properties = schema.properties as Record<string, Json> | undefined;
  for (const [field, property] of Object.entries(properties ?? {})) {
    const doc = docs[`${prefix}${field}`];
    // Beside a `$ref` too (3.1 allows it): the field says what the named type means here.
    if (doc) property.description = doc;
    const nested = (property.items as Json | undefined) ?? property;
    if (nested.properties) describeFields(nested, docs, `${prefix}${field}.`);
  }
}

/**
 * `x-exactly-one-of: [a, b]` on an object (the contract's refinement, which zod cannot show) becomes
 * a `oneOf` of one variant per field: that field required, the others left out, which the variant's
 * `additionalProperties: false` refuses (a `false` schema per field would say it again, and some
 * generators refuse boolean schemas).
 */
function exactlyOneOf(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(exactlyOneOf);
  if (!node || typeof node !== 'object') return node;
  const out = Object.fromEntries(
    Object.entries(node as Json).map(([key, inner]) => [key, exactlyOneOf(inner)]),
  );
  const fields = out['x-exactly-one-of'] as string[] | undefined;
  if (!fields) return out;
  delete out['x-exactly-one-of'];
  // The variants say which fields are allowed: one `additionalProperties` beside them would refuse all.
  const {
    properties,
    required = [],
    additionalProperties: _closed,
    ...rest
  } = out as Json & {
    required?: string[];
  };
  return {
    ...rest,
    oneOf: fields.map((field) => ({
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(properties as Json).filter(
          ([name]) => name === field || !fields.includes(name),
        ),
      ),
      required: [...required, field],
      additionalProperties: false,
    })),
  };
}

/**
 * OpenAPI 3.0's `nullable: true` becomes a 3.1 type union with "null"; free text's pattern becomes
 * the one every schema tool reads (`TEXT_WIRE_PATTERN`).
 */
function toOpenApi31(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toOpenApi31);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) out[key] = toOpenApi31(value);
  if (out.pattern === TEXT_PATTERN.source) out.pattern = TEXT_WIRE_PATTERN;
  // 3.1's `exclusiveMinimum` is a number; beside it, anatine's `minimum` says less and mixes styles.
  if (typeof out.exclusiveMinimum === 'number' && typeof out.minimum === 'number') {
    if (out.exclusiveMinimum >= out.minimum) delete out.minimum;
  }
  const nullable = out.nullable === true;
  delete out.nullable;
  if (nullable) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    // An empty schema (zod's `unknown`) already takes null.
    else if (Object.keys(out).length > 0 && !out.type) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

// ---------------------------------------------------------------------------
// Headers and parameters every operation shares.

const header = (description: string, schema: Json, example?: unknown): Json => ({
  description,
  schema: example === undefined ? schema : { ...schema, example },
});

const HEADERS: Record<string, Json> = {
  RequestId: header(
    "The request's id: the caller's own `X-Request-Id`, or a generated `req_…`. Quote it when reporting a problem.",
    { type: 'string' },
    'req_3f1c9a0b7e2d4c5f8a6b1e0d9c7f2a4b',
  ),
  RateLimitLimit: header(
    'Requests the key may make in the current window.',
    { type: 'integer' },
    60,
  ),
  RateLimitRemaining: header('Requests left in the current window.', { type: 'integer' }, 59),
  RateLimitReset: header('Seconds until the window resets.', { type: 'integer' }, 60),
  RetryAfter: header('Seconds to wait before trying again.', { type: 'integer' }, 5),
  IdempotentReplayed: header(
    '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`; the operation did not run again.',
    { type: 'string', enum: ['true'] },
  ),
  Link: header(
    'The next page, as `<url>; rel="next"` (the same URL with `cursor`); absent on the last page.',
    { type: 'string' },
    `</api/v1/orders?status=completed&limit=20&cursor=${CURSOR_EXAMPLE}>; rel="next"`,
  ),
};
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

const PARAMETERS: Record<string, Json> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Any unique string of 1–255 characters (a UUID). The first answer (a 2xx, 404 or 422) is kept for 24 hours per key: a retry with the same key and body gets it back with `Idempotent-Replayed: true` instead of the operation running twice; the same key with another body is a 422.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: '5f0c7a52-9d6e-4e7b-8a43-1f2b3c4d5e6f',
  },
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description:
      'Your own id for the request, echoed in the answer and the logs. One of 1–128 letters, digits and `_.:@/+=-` is kept; any other value is replaced by a generated `req_…` (never refused): read the id from the answer.',
    schema: { type: 'string' },
  },
};
const parameterRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });

// ---------------------------------------------------------------------------
// Responses.

function errorDescription(status: number, codes: string[]): string {
  const lines = codes.map(
    (code) => `- \`${code}\`: ${required(ERROR_CODES[code], `no error code ${code}`).when}`,
  );
  return [`${REASONS[status] ?? 'Error'}. \`code\` is one of:`, '', ...lines].join('\n');
}

function errorHeaders(status: number, operation: OperationFacts): Json {
  const headers: Json = { 'X-Request-Id': headerRef('RequestId') };
  if (![401, ...PROTOCOL_STATUSES, 500].includes(status)) {
    headers['X-RateLimit-Limit'] = headerRef('RateLimitLimit');
    headers['X-RateLimit-Remaining'] = headerRef('RateLimitRemaining');
    headers['X-RateLimit-Reset'] = headerRef('RateLimitReset');
  }
  if ([409, 429, 503].includes(status)) headers['Retry-After'] = headerRef('RetryAfter');
  if (status === 416) {
    headers['Content-Range'] = header(
      'The size of the file: `bytes */<size>`.',
      { type: 'string' },
      'bytes */5123456',
    );
  }
  if (operation.method === 'POST' && [404, 422].includes(status)) {
    headers['Idempotent-Replayed'] = headerRef('IdempotentReplayed');
  }
  return headers;
}

function errorResponse(status: number, codes: string[], operation: OperationFacts): Json {
  const examples = Object.fromEntries(
    codes.flatMap((code) => {
      const example = errorExamples[code];
      return example ? [[code, { summary: code, value: example.body }]] : [];
    }),
  );
  return {
    description: errorDescription(status, codes),
    headers: errorHeaders(status, operation),
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/Error' },
            {
              type: 'object',
              properties: { code: { type: 'string', enum: codes } },
              required: ['code'],
            },
          ],
        },
        ...(Object.keys(examples).length > 0 && { examples }),
      },
    },
  };
}

/** How a resource is named in the document's prose. */
interface Nouns {
  /** `check-ins` */
  plural: string;
  /** `check-in` */
  singular: string;
  /** The description of its `id` path parameter. */
  id: string;
}

/**
 * The test helpers: the router whose objects each acts on (their nouns name its `id`), and what its
 * answer holds, in words.
 */
const TEST_HELPERS: Readonly<Record<string, { actsOn?: string; answer: string }>> = {
  'testHelpers.createOrder': {
    actsOn: 'orders',
    answer: 'Created. The answer is the new order, with its tickets and their attendees.',
  },
  'testHelpers.refundOrder': { actsOn: 'orders', answer: 'The order, refunded.' },
  'testHelpers.advancePayout': { actsOn: 'payouts', answer: 'The payout, one step on.' },
  'testHelpers.reset': { answer: 'The fresh sample data, counted by kind.' },
};

/** What a successful answer holds, in words. */
function successDescription(
  operation: OperationFacts,
  route: AppRoute,
  status: number,
  nouns: Nouns | undefined,
): string {
  const helper = TEST_HELPERS[operation.key];
  if (helper) return helper.answer;
  if (operation.key === 'checkins.createBatch') {
    return 'One result per scan, in the order sent: the check-in recorded (`201`), or why the scan was refused.';
  }
  if (!nouns) throw new Error(`OpenAPI document: ${operation.key} has no nouns`);
  if (route.method === 'GET' && !operation.hasId) {
    return operation.hasCursor
      ? `A page of ${nouns.plural}: \`data\`, with \`next_cursor\` for the next page.`
      : `A page of ${nouns.plural}: \`data\`, with \`total\` for how many there are.`;
  }
  if (status === 201) return `Created. The answer is the new ${nouns.singular}.`;
  if (status === 202) {
    return `Accepted. The answer is the new ${nouns.singular}, \`pending\`: poll it until it is \`ready\`.`;
  }
  if (route.method === 'PATCH') return `Updated. The answer is the ${nouns.singular} as it is now.`;
  if (route.method === 'DELETE') return 'Deleted.';
  return `The ${nouns.singular}.`;
}

/**
 * One security scheme per scope: all three are the same bearer API key, and the scheme an
 * operation names says which scope that key needs (OpenAPI lists scopes only for OAuth).
 */
const SCOPE_SCHEMES: Record<string, string> = {
  read: 'readKey',
  write: 'writeKey',
  'checkins:write': 'checkinsWriteKey',
};

function operationFacts(key: string, route: AppRoute): OperationFacts {
  const query = route.query as { shape?: Record<string, unknown> } | null | undefined;
  return {
    key,
    method: route.method as OperationFacts['method'],
    hasBody: route.method === 'POST' || route.method === 'PATCH',
    hasCursor: Boolean(query?.shape && 'cursor' in query.shape),
    hasId: route.path.includes('/:id'),
    testModeOnly: (route.metadata as RouteMetadata).testModeOnly === true,
  };
}

/** Rewrites one generated operation with what the contract's zod schemas cannot say. */
function complete(key: string, route: AppRoute, generated: Json, nouns: Nouns | undefined): Json {
  const operation = operationFacts(key, route);
  const scope = (route.metadata as { scope: string }).scope;
  const example = operationExamples[key as OperationKey];
  const responses: Json = {};
  const generatedResponses = generated.responses as Record<string, Json>;
  for (const [statusText, response] of Object.entries(generatedResponses)) {
    const status = Number(statusText);
    if (status >= 300) continue;
    const headers: Json = {
      'X-Request-Id': headerRef('RequestId'),
      'X-RateLimit-Limit': headerRef('RateLimitLimit'),
      'X-RateLimit-Remaining': headerRef('RateLimitRemaining'),
      'X-RateLimit-Reset': headerRef('RateLimitReset'),
    };
    if (operation.method === 'POST')
      headers['Idempotent-Replayed'] = headerRef('IdempotentReplayed');
    if (operation.hasCursor) headers.Link = headerRef('Link');
    if (key === 'exports.file') {
      responses[statusText] = exportFileResponse(status, headers, example.response);
      continue;
    }
    const media = required(
      (response.content as Record<string, Json>)['application/json'],
      `${key} ${statusText} has no JSON response`,
    );
    responses[statusText] = {
      description: successDescription(operation, route, status, nouns),
      headers,
      content: {
        'application/json': { ...media, example: example.response },
      },
    };
  }
  const sharedCodes = errorCodesOf(ANY_OPERATION);
  for (const [status, codes] of errorCodesOf(operation)) {
    const shared = SHARED_NAMES[status];
    // A status with codes of its own here (a test helper's 403) is described here.
    const same = shared && sharedCodes.get(status)?.join() === codes.join();
    responses[String(status)] = same
      ? { $ref: `#/components/responses/${shared}` }
      : errorResponse(status, codes, operation);
  }

  const parameters = ((generated.parameters as Json[] | undefined) ?? []).map((parameter) => {
    if (parameter.in === 'path' && parameter.name === 'id') {
      return { ...parameter, description: required(nouns, `${key} has no nouns`).id };
    }
    const schema = parameter.schema as Json;
    // A list of values travels comma-separated (`status=draft,published`).
    return schema.type === 'array' ? { ...parameter, style: 'form', explode: false } : parameter;
  });
  if (operation.method === 'POST') parameters.push(parameterRef('IdempotencyKey'));
  parameters.push(parameterRef('RequestId'));

  const out: Json = {
    ...generated,
    description: [
      route.description,
      `Needs the \`${scope}\` scope; counts against the ${rateLimitClassOf(route.method)} rate limit.`,
    ]
      .filter(Boolean)
      .join('\n\n'),
    parameters,
    responses,
    security: [{ [required(SCOPE_SCHEMES[scope], `no security scheme for ${scope}`)]: [] }],
    'x-codeSamples': codeSamples(key),
  };
  if (generated.requestBody) {
    const body = generated.requestBody as { content: Record<string, Json> };
    const examples = example.requests;
    const optional = (route as { body?: ZodTypeAny }).body?.isOptional() === true;
    out.requestBody = {
      required: !optional,
      description: optional ? 'A JSON object, or no body.' : 'A JSON object.',
      content: {
        'application/json': {
          ...body.content['application/json'],
          ...(examples && { examples }),
        },
      },
    };
  }
  return out;
}

/**
 * The answer of `GET /exports/{id}/file`: the file (200) or one range of it (206), in the media
 * type of its format, gzip-encoded when the request accepts it.
 */
function exportFileResponse(status: number, headers: Json, example: unknown): Json {
  const text = (description: string) => ({ schema: { type: 'string', description } });
  return {
    description:
      status === 206
        ? 'One range of the file (`Range`, honoured when `If-Range` is absent or names the current `ETag`), in the encoding sent; `Content-Range` says which bytes.'
        : 'The whole file, as an attachment.',
    headers: {
      ...headers,
      ETag: header(
        'A strong tag of the file in the encoding sent (the gzip encoding has its own): send it back in `If-Range` to resume.',
        { type: 'string' },
        '"exp_0VQ2b4fRk1LmN8pXz3TcWq7Y.3kT9mQ2xLr8Z.gzip"',
      ),
      'Accept-Ranges': header('Always `bytes`.', { type: 'string', enum: ['bytes'] }),
      'Content-Disposition': header(
        'An attachment named after the export and its format.',
        { type: 'string' },
        'attachment; filename="exp_0VQ2b4fRk1LmN8pXz3TcWq7Y.ndjson"',
      ),
      'Content-Encoding': header(
        '`gzip` when the request accepts it (`Accept-Encoding: gzip`); absent otherwise.',
        { type: 'string', enum: ['gzip'] },
      ),
      ...(status === 206 && {
        'Content-Range': header(
          'The bytes sent, of the whole: `bytes <first>-<last>/<size>`.',
          { type: 'string' },
          'bytes 1048576-2097151/5123456',
        ),
      }),
    },
    content: {
      'application/x-ndjson': {
        ...text('An `ndjson` export: one JSON object per line.'),
        ...(status === 200 && { example }),
      },
      'text/csv': text('A `csv` export (RFC 4180, UTF-8): a header row, then one row per object.'),
    },
  };
}

/** Statuses whose codes are the same on every operation: one shared response each. */
const SHARED_NAMES: Readonly<Record<number, string>> = {
  401: 'Unauthorized',
  402: 'PlanRequired',
  403: 'MissingScope',
  408: 'RequestTimeout',
  417: 'ExpectationFailed',
  429: 'RateLimited',
  431: 'HeadersTooLarge',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

/** An operation with nothing of its own: the codes it can answer, every operation can. */
const ANY_OPERATION: OperationFacts = {
  key: '',
  method: 'GET',
  hasBody: false,
  hasCursor: false,
  hasId: false,
  testModeOnly: false,
};

/** The responses every operation shares: their codes are the same wherever they occur. */
function sharedResponses(): Json {
  const any = ANY_OPERATION;
  const codes = errorCodesOf(any);
  return Object.fromEntries(
    Object.entries(SHARED_NAMES).map(([status, name]): [string, Json] => [
      name,
      errorResponse(
        Number(status),
        required(codes.get(Number(status)), `no error codes for ${status}`),
        any,
      ),
    ]),
  );
}

// ---------------------------------------------------------------------------

/**
 * The OpenAPI 3.1 document of the public API, generated from the contract, with what zod cannot
 * carry added: named schemas with the contract's field descriptions, headers, error codes per
 * operation and status, scopes, examples and the guides of docs/api.md. Its server URL is
 * `SERVER_URL_PLACEHOLDER`, for the endpoint to fill in. The generator is loaded here, on first
 * use, not when the server starts.
 */
export async function buildOpenApiDocument(version: string): Promise<Json> {
  const { generateOpenApi } = await import('@ts-rest/open-api');
  const routes = new Map<string, AppRoute>(OPERATIONS);
  const named = components();
  const byShape = new Map(named.map((component) => [canonical(component.schema), component.name]));

  const guides = referenceGuides();
  const generated = generateOpenApi(
    contract,
    {
      info: {
        title: 'Boxoffice API',
        version,
        description: guides.description,
        contact: { name: 'Boxoffice developer support' },
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: SERVER_URL_PLACEHOLDER, description: 'This server' }],
      tags: guides.tags,
    },
    { setOperationId: 'concatenated-path' },
  ) as unknown as Json;

  const nouns = new Map<string, Nouns>();
  for (const [key, route] of routes) {
    const [router, name] = key.split('.') as [string, string];
    if (name !== 'get') continue;
    const singular = (route.summary ?? '').replace(/^Get (an?|the) /, '');
    const tag = guides.tags.find((candidate) => candidate.name === router);
    nouns.set(router, {
      singular,
      plural: tag ? tag['x-displayName'].toLowerCase() : router,
      id: FIELD_DOCS[`${itemName(router)}Schema`]?.id ?? `The ${singular}'s id.`,
    });
  }

  const paths: Json = {};
  for (const [path, item] of Object.entries(generated.paths as Record<string, Json>)) {
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) => {
        const key = (operation as Json).operationId as string;
        return [
          method,
          complete(
            key,
            required(routes.get(key), `no route ${key}`),
            operation as Json,
            nouns.get(key in TEST_HELPERS ? (TEST_HELPERS[key]?.actsOn ?? '') : beforeDot(key)),
          ),
        ];
      }),
    );
  }

  const componentSchemas: Json = {};
  for (const component of named) {
    const schema = referTo(component.schema, byShape) as Json;
    const docs = component.exportName ? FIELD_DOCS[component.exportName] : undefined;
    if (docs) describeFields(schema, docs);
    componentSchemas[component.name] = schema;
  }

  const document: Json = {
    ...generated,
    openapi: '3.1.0',
    paths: referTo(paths, byShape),
    components: {
      schemas: componentSchemas,
      responses: sharedResponses(),
      parameters: PARAMETERS,
      headers: HEADERS,
      securitySchemes: {
        ...Object.fromEntries(
          Object.entries(SCOPE_SCHEMES).map(([scope, scheme]) => [
            scheme,
            {
              type: 'http',
              scheme: 'bearer',
              bearerFormat: 'bxo_live_…',
              description: `An API key with the \`${scope}\` scope: \`Authorization: Bearer bxo_live_…\` (live data), or \`bxo_test_…\` (the organisation's test data). Keys are made in the dashboard (Settings → API keys) for an organisation on the Pro plan; one key may hold several scopes.`,
            },
          ]),
        ),
        webhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'webhook-signature',
          description:
            'How a webhook receiver knows the message is ours: the Standard Webhooks signature, `v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body">` keyed with the endpoint\'s `whsec_…` secret. `webhooks.unwrap()` in the SDK (or any Standard Webhooks library) checks it.',
        },
      },
    },
    webhooks: webhookPayloads(),
  };
  return toOpenApi31(exactlyOneOf(document)) as Json;
}

/** What a webhook endpoint receives for each event type (`checkin.created` → a `Checkin`). */
function webhookPayloads(): Json {
  const types = schemas.WEBHOOK_EVENT_TYPES as readonly string[];
  return Object.fromEntries(
    types.map((type) => {
      const object = capitalised(beforeDot(type));
      return [
        type,
        {
          post: {
            operationId: `webhooks.${type}`,
            security: [{ webhookSignature: [] }],
            summary: `\`${type}\``,
            description: `Sent to the endpoints subscribed to \`${type}\` (or \`*\`), signed with the endpoint's secret (Standard Webhooks: \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`). \`data.object\` is the ${object.toLowerCase()} as the API renders it after the change.`,
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    allOf: [
                      { $ref: '#/components/schemas/WebhookEvent' },
                      {
                        type: 'object',
                        properties: {
                          type: { type: 'string', enum: [type] },
                          data: {
                            type: 'object',
                            properties: { object: { $ref: `#/components/schemas/${object}` } },
                          },
                        },
                      },
                    ],
                  },
                },
              },
            },
            responses: {
              '200': {
                description:
                  'Any 2xx acknowledges the message; anything else, or no answer within 10 s, is retried (with backoff, for about three days).',
              },
            },
          },
        },
      ];
    }),
  );
}
