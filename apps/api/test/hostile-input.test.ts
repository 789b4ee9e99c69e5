/**
 * Property-based tests that throw thousands of malformed requests at a real server (raw HTTP/1.1
 * over TCP, real PostgreSQL) and check what every answer must be: never a 5xx, always the JSON
 * error envelope, and no row written unless the request was valid.
 *
 * A failure prints fast-check's seed and path; replay it with
 * `FC_SEED=<seed> FC_PATH=<path> pnpm exec vitest run test/hostile-input.test.ts`.
 * `FC_RUNS=<n>` runs that many batches per property instead of the default.
 */
import { connect } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { revokeKey } from '../src/modules/api-keys/api-key.service';
import { createEvent } from '../src/modules/events/event.service';
import { buildEvent, buildPayout, DATA_TABLES, LISTS, type EventFixture } from './fixtures';
import {
  createKey,
  createTenant,
  getTestOrm,
  useTestServer,
  type TestServer,
  type TestTenant,
} from './setup';

const JSON_TYPE = 'application/json; charset=utf-8';
const BODY_LIMIT = 100 * 1024;
/** Requests in flight at once. */
const PARALLEL = 16;
/** An answer slower than this counts as a hang. */
const ANSWER_TIMEOUT_MS = 15_000;

const runsFromEnv = Number(process.env.FC_RUNS);
const replay = process.env.FC_SEED
  ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH }
  : {};
const runs = (fallback: number): number =>
  Number.isInteger(runsFromEnv) && runsFromEnv > 0 ? runsFromEnv : fallback;
/** The seed and path of a failure replay it; shrinking a failure stops after 200 s. */
const checkOptions = <T>(numRuns: number): fc.Parameters<T> => ({
  numRuns: runs(numRuns),
  interruptAfterTimeLimit: 200_000,
  ...replay,
});

// ---------------------------------------------------------------------------------------------
// A raw HTTP/1.1 client: the request goes out byte for byte as generated (nothing normalises the
// method, target or header values), and the answer is parsed without trusting it.

interface RawRequest {
  method: string;
  /** The request target as sent, one character per byte (latin1). */
  target: string;
  version: string;
  /** Header lines as sent, one character per byte. */
  headers: [name: string, value: string][];
  body: Buffer;
  /** How the body is framed: a Content-Length (none for GET and HEAD without a body), chunks, or
   * framing the HTTP parser must refuse. */
  framing: 'length' | 'chunked' | 'length-and-chunked' | 'two-lengths' | 'bad-chunk';
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

type Outcome = { response: RawResponse } | { failure: string };

function chunks(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += 4096) {
    const piece = body.subarray(at, at + 4096);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

function encodeRequest(request: RawRequest): Buffer {
  const lines = [
    `${request.method} ${request.target} ${request.version}`,
    'Host: 127.0.0.1',
    'Connection: close',
    ...request.headers.map(([name, value]) => `${name}: ${value}`),
  ];
  const { body } = request;
  let payload = body;
  switch (request.framing) {
    case 'length':
      if (body.length > 0 || !['GET', 'HEAD'].includes(request.method)) {
        lines.push(`Content-Length: ${body.length}`);
      }
      break;
    case 'chunked':
      lines.push('Transfer-Encoding: chunked');
      payload = chunks(body);
      break;
    case 'length-and-chunked':
      lines.push(`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked');
      payload = chunks(body);
      break;
    case 'two-lengths':
      lines.push(`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`);
      break;
    case 'bad-chunk':
      lines.push('Transfer-Encoding: chunked');
      payload = Buffer.concat([Buffer.from('zz\r\n'), body, Buffer.from('\r\n0\r\n\r\n')]);
      break;
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
}

/** The final (non-1xx) answer in `data`, or null while it is incomplete. */
function parseResponse(data: Buffer, head: boolean, closed: boolean): RawResponse | null {
  let start = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', start);
    if (end < 0) return null;
    const [statusLine = '', ...lines] = data.subarray(start, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3}) /.exec(`${statusLine} `);
    if (!match) return null;
    const status = Number(match[1]);
    if (status >= 100 && status < 200) {
      start = end + 4; // 100 Continue: the real answer follows
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    const rest = data.subarray(end + 4);
    if (head || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const parts: Buffer[] = [];
      for (let at = 0; ;) {
        const lineEnd = rest.indexOf('\r\n', at);
        if (lineEnd < 0) return null;
        const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
        if (Number.isNaN(size)) return null;
        if (size === 0) return { status, headers, body: Buffer.concat(parts) };
        if (rest.length < lineEnd + 2 + size + 2) return null;
        parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
    }
    const length = headers['content-length'];
    if (length === undefined) return closed ? { status, headers, body: rest } : null;
    return rest.length >= Number(length)
      ? { status, headers, body: rest.subarray(0, Number(length)) }
      : null;
  }
}

function send(server: TestServer, request: RawRequest): Promise<Outcome> {
  const port = Number(new URL(server.baseUrl).port);
  const head = request.method === 'HEAD';
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    let settled = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const closed = (error?: Error) => {
      // A reset after the complete answer (the server closed with input left unread) is fine.
      const data = Buffer.concat(received);
      const response = parseResponse(data, head, true);
      settle(
        response
          ? { response }
          : {
              failure: `the connection ended without a complete answer${error ? ` (${error.message})` : ''}: ${show(data.toString('latin1'))}`,
            },
      );
    };
    const timer = setTimeout(
      () => settle({ failure: `no answer within ${ANSWER_TIMEOUT_MS} ms (the server hangs)` }),
      ANSWER_TIMEOUT_MS,
    );
    const socket = connect(port, '127.0.0.1', () => socket.write(encodeRequest(request)));
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const response = parseResponse(Buffer.concat(received), head, false);
      if (response) settle({ response });
    });
    socket.on('end', () => closed());
    socket.on('close', () => closed());
    socket.on('error', (error) => closed(error));
  });
}

/** Runs `task` over `items`, `width` at a time; the results in the order of the items. */
async function inParallel<T, R>(
  items: readonly T[],
  width: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

function show(text: string, max = 300): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);
}

function describeRequest(request: RawRequest): string {
  const headers = request.headers.map(([name, value]) => `${name}: ${show(value, 80)}`).join(', ');
  return [
    `${show(request.method, 40)} ${show(request.target, 200)} ${request.version}`,
    `headers {${headers}}`,
    `body (${request.framing}) ${show(request.body.toString('latin1'), 200)}`,
  ].join('; ');
}

/** Shows the request as fast-check reports a counterexample: readable, long values cut. */
const printable = (request: RawRequest): RawRequest =>
  Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });

function fail(message: string, request: RawRequest, outcome?: Outcome): never {
  const answer = !outcome
    ? ''
    : 'failure' in outcome
      ? `\n  answer: ${outcome.failure}`
      : `\n  answer: ${outcome.response.status} ${outcome.response.headers['content-type'] ?? '(no content type)'} ${show(outcome.response.body.toString('utf8'))}`;
  throw new Error(`${message}\n  request: ${describeRequest(request)}${answer}`);
}

/**
 * What every answer must be, whatever was asked: complete and in time, never a 5xx (the database
 * is up), with a request id; an error is JSON with a string `error` (HEAD answers have no body).
 * Returns the answer.
 */
function checkAnswer(request: RawRequest, outcome: Outcome): RawResponse {
  if ('failure' in outcome) fail(outcome.failure, request);
  const { response } = outcome;
  if (response.status >= 500) fail(`a ${response.status} answer`, request, outcome);
  if (!response.headers['x-request-id']) fail('an answer without X-Request-Id', request, outcome);
  if (response.status >= 400) {
    if (response.headers['content-type'] !== JSON_TYPE) {
      fail('an error that is not JSON', request, outcome);
    }
    if (request.method === 'HEAD') {
      if (response.body.length > 0) fail('a HEAD answer with a body', request, outcome);
      return response;
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body.toString('utf8'));
    } catch {
      fail('an error body that is not JSON', request, outcome);
    }
    if (typeof (body as { error?: unknown } | null)?.error !== 'string') {
      fail('an error body without a string `error`', request, outcome);
    }
  }
  return response;
}

const jsonOf = (response: RawResponse): any => JSON.parse(response.body.toString('utf8'));

// ---------------------------------------------------------------------------------------------
// Database snapshots: a hash of every row of some organisations' tables, and of their API keys'
// idempotency records.

const TENANT_TABLES = DATA_TABLES;
type Table = 'organisations' | (typeof TENANT_TABLES)[number];

interface IdempotencyRow {
  api_key_id: string;
  key: string;
  state: string;
  response_status: number | null;
  response_body: unknown;
  hash: string;
}

interface Snapshot {
  rows: Record<Table, Map<string, string>>;
  idempotency: Map<string, IdempotencyRow>;
}

const idempotencyId = (apiKeyId: string, key: string): string => `${apiKeyId} ${key}`;

async function snapshot(organisationIds: string[], apiKeyIds: string[]): Promise<Snapshot> {
  const connection = (await getTestOrm()).em.fork().getConnection();
  const hashes = async (table: Table, column: string) => {
    const found = await connection.execute<{ id: string; hash: string }[]>(
      `select id, md5(t::text) as hash from ${table} t
        where ${column} in (${organisationIds.map(() => '?').join(', ')})`,
      organisationIds,
    );
    return new Map(found.map((row) => [row.id, row.hash]));
  };
  const rows = { organisations: await hashes('organisations', 'id') } as Snapshot['rows'];
  for (const table of TENANT_TABLES) rows[table] = await hashes(table, 'organisation_id');
  const records = await connection.execute<IdempotencyRow[]>(
    `select api_key_id, key, state, response_status, response_body, md5(t::text) as hash
       from idempotency_records t where api_key_id in (${apiKeyIds.map(() => '?').join(', ')})`,
    apiKeyIds,
  );
  return {
    rows,
    idempotency: new Map(records.map((row) => [idempotencyId(row.api_key_id, row.key), row])),
  };
}

interface Changes {
  added: string[];
  changed: string[];
  removed: string[];
}

function changesOf(before: Map<string, string>, after: Map<string, string>): Changes {
  const changes: Changes = { added: [], changed: [], removed: [] };
  for (const [id, hash] of after) {
    if (!before.has(id)) changes.added.push(id);
    else if (before.get(id) !== hash) changes.changed.push(id);
  }
  for (const id of before.keys()) if (!after.has(id)) changes.removed.push(id);
  return changes;
}

/**
 * The value of a header as Node reads it: without surrounding spaces and tabs, and repeated
 * headers joined with `, `.
 */
function headerValue(request: RawRequest, name: string): string | undefined {
  const values = request.headers
    .filter(([header]) => header.toLowerCase() === name.toLowerCase())
    .map(([, value]) => value.replace(/^[ \t]+|[ \t]+$/g, ''));
  return values.length > 0 ? values.join(', ') : undefined;
}

// ---------------------------------------------------------------------------------------------
// Generators of values.

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...BASE62), minLength: min, maxLength: max });

/** The UTF-8 bytes of `text` as a latin1 string: raw text on the wire. */
const wire = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

/** Header-safe raw text: the UTF-8 bytes of `text` without control characters. */
const headerSafe = (text: string): string =>
  [...wire(text)]
    .filter((char) => {
      const code = char.charCodeAt(0);
      return code === 0x09 || (code >= 0x20 && code !== 0x7f);
    })
    .join('');

/** Percent-encodes every byte of `text` outside the unreserved set. */
const percentEncoded = (text: string): string =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** Raw in the URL where the HTTP parser allows it (`&`, `=`, `%`, quotes…), encoded elsewhere. */
const urlRaw = (text: string): string =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      byte > 0x20 && byte < 0x7f && byte !== 0x23
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

const SQLISH = [
  "' OR 1=1 --",
  "'; DROP TABLE events; --",
  '" OR ""="',
  '1; select pg_sleep(10)',
  "') union select * from api_keys --",
  '%',
  '_',
  '\\',
  '$1',
];

/** Short text of every kind: printable, any code point (lone surrogates too), SQL, NUL. */
const shortText = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom(...SQLISH, '', ' ', '\u0000', 'a\u0000b', '\uD800', '\uFFFF', '🎟️', 'Ω≈ç√'),
);
/** Also long text. */
const anyText = fc.oneof(
  { arbitrary: shortText, weight: 6 },
  { arbitrary: fc.integer({ min: 150, max: 6_000 }).map((n) => 'x'.repeat(n)), weight: 1 },
);

/** Number-like text. */
const NUMBERISH = [
  '1',
  '0',
  '-1',
  '-0',
  '1.5',
  '1e3',
  '1e308',
  '1e309',
  '-1e309',
  'NaN',
  'Infinity',
  '0x10',
  '010',
  '+1',
  ' 1',
  '1 ',
  '１',
  '99999999999999999999',
  '9007199254740993',
  '2147483648',
  '-2147483649',
  '',
];

const isoTime = fc
  .date({
    min: new Date('2000-01-01T00:00:00Z'),
    max: new Date('2100-01-01T00:00:00Z'),
    noInvalidDate: true,
  })
  .map((date) => date.toISOString());

const ODD_TIMES = [
  '0001-01-01T00:00:00Z',
  '0000-12-31T23:59:59Z',
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59.999-01:00',
  '10000-01-01T00:00:00Z',
  '2027-02-30T19:00:00Z',
  '2027-13-01T19:00:00Z',
  '2027-06-01',
  '2027-06-01T19:00:00',
  '2027-06-01T19:00:00+14:00',
  '2027-06-01T19:00:00.123456789Z',
  '2027-06-01 19:00:00Z',
  'yesterday',
  '',
];

const timeValue = fc.oneof(
  { arbitrary: isoTime, weight: 4 },
  { arbitrary: fc.constantFrom(...ODD_TIMES), weight: 1 },
);

/** `value` in `percent` of the cases, otherwise undefined. */
const sometimes = <T>(percent: number, value: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 100 - percent },
    { arbitrary: value, weight: percent },
  );

/** Mostly `valid`, sometimes any JSON value. */
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: fc.jsonValue(), weight: 1 });

const nameValue = mostly(
  fc.oneof(
    { arbitrary: fc.string({ minLength: 1, maxLength: 60 }), weight: 4 },
    { arbitrary: anyText, weight: 1 },
  ),
);
const timezoneValue = mostly(
  fc.constantFrom(
    'Europe/London',
    'europe/berlin',
    'UTC',
    'America/New_York',
    'Asia/Kolkata',
    'Mars/Olympus',
    '+01:00',
    'Etc/GMT+5',
    '',
  ),
);
const currencyValue = mostly(fc.constantFrom('GBP', 'GBP', 'EUR', 'USD', 'gbp', 'EURO', '', '€'));

/** The body of `POST /events`, mostly valid; `ends_at` mostly after `starts_at`. */
const eventCreateBody = fc
  .record(
    {
      name: nameValue,
      timezone: timezoneValue,
      starts: isoTime,
      hours: fc.integer({ min: -3, max: 72 }),
      currency: currencyValue,
      description: mostly(fc.option(anyText)),
      venue: mostly(fc.option(fc.string({ maxLength: 60 }))),
      capacity: mostly(fc.option(fc.integer({ min: 1, max: 10_000_000 }))),
      status: mostly(fc.constantFrom('draft', 'published')),
    },
    { requiredKeys: ['name', 'timezone', 'starts', 'hours', 'currency'] },
  )
  .map(({ starts, hours, ...rest }): Record<string, unknown> => ({
    ...rest,
    starts_at: starts,
    ends_at: new Date(Date.parse(starts) + hours * 3_600_000).toISOString(),
  }));

/** The body of `PATCH /events/{id}`: any subset of the writable fields, mostly valid. */
const eventUpdateBody: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    name: nameValue,
    description: mostly(fc.option(anyText)),
    venue: mostly(fc.option(fc.string({ maxLength: 60 }))),
    timezone: timezoneValue,
    starts_at: timeValue,
    ends_at: timeValue,
    currency: currencyValue,
    capacity: mostly(fc.option(fc.integer({ min: -1, max: 10_000_001 }))),
    status: mostly(fc.constantFrom('draft', 'published', 'completed', 'cancelled', 'sold_out')),
  },
  { requiredKeys: [] },
);

const tierFields = {
  name: nameValue,
  price: mostly(
    fc.oneof(
      fc.integer({ min: 0, max: 100_000 }),
      fc.constantFrom(0, 2_147_483_647, 2_147_483_648, -1, 1.5, 1e308),
    ),
  ),
  description: mostly(fc.option(anyText)),
  quantity_total: mostly(fc.option(fc.integer({ min: 0, max: 1000 }))),
  max_per_order: mostly(fc.option(fc.integer({ min: 0, max: 1001 }))),
  sales_start_at: mostly(fc.option(timeValue)),
  sales_end_at: mostly(fc.option(timeValue)),
  sort_order: mostly(fc.integer({ min: -1_000_001, max: 1_000_001 })),
  status: mostly(fc.constantFrom('on_sale', 'paused', 'hidden', 'sold_out')),
};

const tierCreateBody = (eventIds: fc.Arbitrary<string>): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(
    { event_id: mostly(eventIds), ...tierFields },
    { requiredKeys: ['event_id', 'name', 'price'] },
  );

const tierUpdateBody: fc.Arbitrary<Record<string, unknown>> = fc.record(tierFields, {
  requiredKeys: [],
});

/** The body of `POST /checkins`: mostly exactly one of `ticket_id` and `code`. */
const checkinBody = (
  ticketIds: fc.Arbitrary<string>,
  codes: fc.Arbitrary<string>,
  eventIds: fc.Arbitrary<string>,
): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .record({
      by: fc.constantFrom('ticket_id', 'ticket_id', 'code', 'code', 'both', 'neither'),
      ticket_id: mostly(ticketIds),
      code: mostly(codes),
      event_id: fc.option(mostly(eventIds), { nil: undefined }),
      direction: fc.option(mostly(fc.constantFrom('entry', 'exit', 'exit', 'sideways')), {
        nil: undefined,
      }),
      gate: fc.option(mostly(fc.string({ maxLength: 12 })), { nil: undefined }),
      device_id: fc.option(shortText, { nil: undefined }),
      scanned_at: fc.option(timeValue, { nil: undefined }),
    })
    .map(({ by, ticket_id, code, ...rest }) => {
      const body: Record<string, unknown> = {};
      if (by === 'ticket_id' || by === 'both') body.ticket_id = ticket_id;
      if (by === 'code' || by === 'both') body.code = code;
      for (const [key, value] of Object.entries(rest)) if (value !== undefined) body[key] = value;
      return body;
    });

/** Now and then breaks a body as clients do: a field missing, one too many, one mistyped. */
const perturbed = (body: fc.Arbitrary<Record<string, unknown>>) =>
  fc
    .tuple(
      body,
      fc.constantFrom('none', 'none', 'none', 'none', 'drop', 'extra', 'retype'),
      fc.nat(),
      fc.jsonValue(),
    )
    .map(([value, how, pick, odd]) => {
      const keys = Object.keys(value);
      const key = keys[pick % Math.max(1, keys.length)];
      if (how === 'drop' && key !== undefined) {
        const { [key]: _dropped, ...rest } = value;
        return rest;
      }
      if (how === 'extra') return { ...value, extra_field: odd };
      if (how === 'retype' && key !== undefined) return { ...value, [key]: odd };
      return value;
    });

/** A raw JSON value, also numbers JSON.stringify cannot write, deep nesting and sizes near the limit. */
const oddJson = fc.oneof(
  { arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)), weight: 4 },
  {
    arbitrary: fc
      .anything()
      .map((value) => (JSON.stringify(value) as string | undefined) ?? 'null'),
    weight: 2,
  },
  {
    arbitrary: fc.constantFrom(
      ...NUMBERISH.filter((n) => /^-?\d/.test(n)),
      '1e400',
      '-0.0',
      '1E-400',
      '123456789012345678901234567890',
    ),
    weight: 1,
  },
  {
    // A string that makes the body just under or just over the limit.
    arbitrary: fc
      .integer({ min: BODY_LIMIT - 300, max: BODY_LIMIT + 1_000 })
      .map((n) => JSON.stringify('x'.repeat(n))),
    weight: 1,
  },
  {
    arbitrary: fc
      .integer({ min: 100, max: 60_000 })
      .map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
    weight: 1,
  },
  {
    arbitrary: fc
      .integer({ min: 100, max: 20_000 })
      .map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
    weight: 1,
  },
);

const INVALID_UTF8 = [
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe0, 0xa4],
  [0x80],
  [0x00],
];

const JSON_TYPES = [
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON;charset=UTF-8',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset="utf-8"; q=1',
];
const OTHER_TYPES = [
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  'json',
  'application/xml',
  '*/*',
  'application/*',
  '',
];

interface Body {
  bytes: Buffer;
  type: string | undefined;
  encoding?: string;
}

const withJsonType = (bytes: fc.Arbitrary<Buffer>): fc.Arbitrary<Body> =>
  fc.tuple(bytes, fc.constantFrom(...JSON_TYPES)).map(([b, type]) => ({ bytes: b, type }));

/** Inserts `fields` into a JSON object text: `{…, "x_hostile…": <value>}`. */
function withUnknownField(fields: Record<string, unknown>, name: string, value: string): string {
  const text = JSON.stringify(fields);
  const unknown = `${JSON.stringify(`x_hostile_${name}`)}:${value}`;
  return text === '{}' ? `{${unknown}}` : `${text.slice(0, -1)},${unknown}}`;
}

// ---------------------------------------------------------------------------------------------

const server = useTestServer();

const bearer = (key: string) => `Bearer ${key}`;

const plainRequest = (
  method: string,
  target: string,
  headers: [string, string][] = [],
  body?: unknown,
): RawRequest => ({
  method,
  target,
  version: 'HTTP/1.1',
  headers: body === undefined ? headers : [...headers, ['Content-Type', 'application/json']],
  body: body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body)),
  framing: 'length',
});

/** The process still answers: health, a valid read and a valid write. */
async function stillServing(key: string): Promise<void> {
  const health = await send(server, plainRequest('GET', '/healthz'));
  expect('response' in health && health.response.status).toBe(200);
  const auth: [string, string][] = [['Authorization', bearer(key)]];
  const list = await send(server, plainRequest('GET', '/api/v1/events?limit=1', auth));
  expect('response' in list && list.response.status).toBe(200);
  const created = await send(
    server,
    plainRequest('POST', '/api/v1/events', auth, {
      name: 'After the storm',
      timezone: 'Europe/London',
      starts_at: '2027-09-01T18:00:00Z',
      ends_at: '2027-09-01T22:00:00Z',
      currency: 'GBP',
    }),
  );
  expect('response' in created && created.response.status).toBe(201);
  for (const outcome of [health, list, created]) {
    if ('response' in outcome) expect(outcome.response.headers['content-type']).toBe(JSON_TYPE);
  }
}

interface World {
  tenant: TestTenant;
  fixtures: EventFixture[];
}

async function tenantWithData(events: number, tickets: number): Promise<World> {
  const tenant = await createTenant();
  const fixtures: EventFixture[] = [];
  for (let i = 0; i < events; i++) {
    fixtures.push(await buildEvent(tenant.organisationId, { tickets }));
  }
  await buildPayout(tenant.organisationId, { eventId: fixtures[0]!.event.id });
  return { tenant, fixtures };
}

describe('hostile input', () => {
  it('answers malformed requests with JSON errors, never a 5xx, and writes nothing', async () => {
    const { tenant: owner, fixtures } = await tenantWithData(2, 3);
    const other = await tenantWithData(1, 2);
    const free = await createTenant(['read', 'write', 'checkins:write'], 'free');
    const readOnly = await createKey(owner.organisationId, ['read']);
    const writeOnly = await createKey(owner.organisationId, ['write']);
    const scanner = await createKey(owner.organisationId, ['checkins:write']);
    const revoked = await createKey(owner.organisationId, ['read', 'write', 'checkins:write']);
    await revokeKey((await getTestOrm()).em.fork(), revoked.apiKeyId);

    // One check-in through the API, so that there are check-ins to address.
    const scan = await send(
      server,
      plainRequest('POST', '/api/v1/checkins', [['Authorization', bearer(owner.key)]], {
        ticket_id: fixtures[0]!.tickets[0]!.id,
      }),
    );
    expect('response' in scan && scan.response.status).toBe(201);
    const checkinId = 'response' in scan ? (jsonOf(scan.response).data.id as string) : '';

    const everyFixture = [...fixtures, ...other.fixtures];
    const allIds = [
      ...everyFixture.flatMap((f) => [f.event.id, f.tier.id, f.order.id]),
      ...everyFixture.flatMap((f) => f.tickets.flatMap((t) => [t.id, t.attendeeId])),
      checkinId,
    ];
    const eventIds = fc.constantFrom(...everyFixture.map((f) => f.event.id));
    const ticketIds = fc.constantFrom(...everyFixture.flatMap((f) => f.tickets.map((t) => t.id)));
    const codes = fc.constantFrom(...everyFixture.flatMap((f) => f.tickets.map((t) => t.code)));

    // Keys that may change data (given a valid body), and keys the server must refuse first.
    const mayWrite = [owner.key, writeOnly.key, scanner.key, other.tenant.key];
    const mustRefuse = [readOnly.key, free.key, revoked.key];
    const organisationIds = [
      owner.organisationId,
      other.tenant.organisationId,
      free.organisationId,
    ];
    const apiKeyIdOf = new Map<string, string>([
      [owner.key, owner.apiKeyId],
      [writeOnly.key, writeOnly.apiKeyId],
      [scanner.key, scanner.apiKeyId],
      [other.tenant.key, other.tenant.apiKeyId],
      [readOnly.key, readOnly.apiKeyId],
      [free.key, free.apiKeyId],
      [revoked.key, revoked.apiKeyId],
    ]);

    /** The key of a header the API accepts (`Bearer`, any case, then a key that may write). */
    const writingKey = (value: string): string | undefined => {
      const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(value);
      return match && mayWrite.includes(match[1]!) ? match[1] : undefined;
    };

    const authorization = fc.oneof(
      {
        arbitrary: fc
          .tuple(
            fc.oneof(
              { arbitrary: fc.constant(owner.key), weight: 5 },
              { arbitrary: fc.constantFrom(...mayWrite.slice(1)), weight: 3 },
              { arbitrary: fc.constantFrom(...mustRefuse), weight: 2 },
            ),
            fc.constantFrom('Bearer ', 'Bearer ', 'bearer ', 'BEARER ', 'Bearer   ', 'Bearer\t'),
            fc.constantFrom('', '', ' ', '\t'),
          )
          .map(([key, scheme, tail]) => `${scheme}${key}${tail}`),
        weight: 12,
      },
      {
        // Wrong schemes and damaged keys: refused with a 401 whatever the key.
        arbitrary: fc
          .tuple(fc.constantFrom(...mayWrite, ...mustRefuse), fc.nat())
          .map(([key, pick]) => {
            const swapped = [...key.slice(9)]
              .map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()))
              .join('');
            const forms = [
              `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
              `Basic ${key}`,
              `Token ${key}`,
              `Bearer${key}`,
              key,
              `Bearer ${key}x`,
              `Bearer ${key.slice(0, -1)}`,
              `Bearer ${key} ${key}`,
              `Bearer ${key},`,
              `Bearer "${key}"`,
              `Bearer ${key.replace('bxo_live_', 'bxo_test_')}`,
              `Bearer bxo_live_${swapped}`,
            ];
            return forms[pick % forms.length]!;
          }),
        weight: 3,
      },
      { arbitrary: base62(0, 140).map((random) => `Bearer bxo_live_${random}`), weight: 1 },
      { arbitrary: shortText.map(headerSafe), weight: 1 },
      {
        arbitrary: fc
          .integer({ min: 1_000, max: 4_000 })
          .map((n) => `Bearer bxo_live_${'A'.repeat(n)}`),
        weight: 1,
      },
    );

    const segment = fc.oneof(
      { arbitrary: fc.constantFrom(...allIds), weight: 8 },
      {
        arbitrary: fc
          .tuple(
            fc.constantFrom('evt', 'tier', 'ord', 'tkt', 'att', 'chk', 'po', 'EVT', 'key', 'org'),
            base62(0, 40),
          )
          .map(([prefix, rest]) => `${prefix}_${rest}`),
        weight: 3,
      },
      { arbitrary: fc.constantFrom(...allIds).map((id) => id.slice(0, -1)), weight: 1 },
      {
        arbitrary: fc.constantFrom(
          '..',
          '.',
          '%2e%2e',
          '%2E',
          '%2F',
          '%5C',
          '\\',
          '%00',
          '%',
          '%%',
          '%zz',
          '%E0%A4%A',
          '%E0%A4',
          '%C0%AF',
          '%ED%A0%80',
          '%FF',
          '%F4%90%80%80',
          ';',
          ';jsessionid=1',
          '',
          '~',
          '*',
          ':id',
          '{id}',
        ),
        weight: 4,
      },
      { arbitrary: shortText.map(percentEncoded), weight: 2 },
      { arbitrary: shortText.map(urlRaw), weight: 2 },
      { arbitrary: fc.constantFrom(...SQLISH).map(percentEncoded), weight: 1 },
      { arbitrary: fc.integer({ min: 500, max: 8_000 }).map((n) => 'a'.repeat(n)), weight: 1 },
    );

    const PREFIXES = [
      ...LISTS.map((list) => `/api/v1/${list}`),
      '/api/v1',
      '/api/v2/events',
      '/API/V1/EVENTS',
      '/api//v1/events',
      '/healthz',
      '/readyz',
      '/openapi.json',
      '/docs',
      '/dashboard/api/session',
      '/dashboard/api/signup',
      '/dashboard/api/login',
      '/dashboard/api/keys',
      '/dashboard/api/plan',
      '/dashboard',
      '',
      'http://127.0.0.1/api/v1/events',
      '*',
    ];
    const wildPath = fc
      .tuple(
        fc.constantFrom(...PREFIXES),
        fc.array(segment, { maxLength: 3 }),
        fc.constantFrom('', '', '', '', '/', '#fragment', '//'),
      )
      .map(
        ([prefix, segments, tail]) => `${prefix}${segments.map((s) => `/${s}`).join('')}${tail}`,
      );
    /** Mostly the API's own routes (a collection, or one item of it), with odd ids. */
    const pathArb = fc.oneof(
      {
        arbitrary: fc
          .tuple(fc.constantFrom(...PREFIXES.slice(0, 7)), sometimes(50, segment))
          .map(([prefix, id]) => (id === undefined ? prefix : `${prefix}/${id}`)),
        weight: 7,
      },
      { arbitrary: wildPath, weight: 3 },
    );

    /** The API's routes with a matching method; reads also as HEAD. */
    const ROUTES: [method: string, path: string, withId: boolean][] = [
      ...['events', 'tiers', 'orders', 'tickets', 'attendees', 'checkins', 'payouts'].flatMap(
        (name): [string, string, boolean][] => [
          ['GET', `/api/v1/${name}`, false],
          ['GET', `/api/v1/${name}`, true],
          ['HEAD', `/api/v1/${name}`, false],
        ],
      ),
      ['POST', '/api/v1/events', false],
      ['PATCH', '/api/v1/events', true],
      ['POST', '/api/v1/tiers', false],
      ['PATCH', '/api/v1/tiers', true],
      ['POST', '/api/v1/checkins', false],
      ['POST', '/api/v1/checkins', false],
    ];
    const routed = fc
      .tuple(fc.constantFrom(...ROUTES), segment, fc.constantFrom('', '', '', '/'))
      .map(([[method, prefix, withId], id, tail]) => ({
        method,
        path: withId ? `${prefix}/${id}${tail}` : `${prefix}${tail}`,
      }));

    const queryKey = fc.oneof(
      {
        arbitrary: fc.constantFrom(
          'page',
          'limit',
          'status',
          'event_id',
          'order_id',
          'ticket_id',
          'tier_id',
          'q',
          'email',
          'code',
          'reference',
          'checked_in',
          'direction',
          'gate',
          'since',
          'updated_since',
          'starts_after',
          'starts_before',
          'status[]',
          'limit[0]',
          '__proto__',
          'constructor',
          'hasOwnProperty',
        ),
        weight: 5,
      },
      { arbitrary: shortText, weight: 1 },
    );
    const queryValue = fc.oneof(
      { arbitrary: fc.constantFrom(...NUMBERISH), weight: 3 },
      {
        arbitrary: fc.constantFrom(
          'draft',
          'published,cancelled',
          'draft,,draft',
          'entry',
          'true',
          'false',
          'TRUE',
          ...ODD_TIMES,
          ...allIds,
        ),
        weight: 3,
      },
      { arbitrary: fc.integer().map(String), weight: 1 },
      { arbitrary: fc.double().map(String), weight: 1 },
      { arbitrary: shortText, weight: 2 },
      { arbitrary: fc.integer({ min: 150, max: 1_000 }).map((n) => 'q'.repeat(n)), weight: 1 },
    );
    const queryArb = fc
      .tuple(
        fc.array(
          fc.tuple(queryKey, queryValue, fc.constantFrom('encoded', 'encoded', 'raw', 'broken')),
          { minLength: 1, maxLength: 6 },
        ),
        fc.boolean(),
      )
      .map(([pairs, repeat]) =>
        // Now and then a parameter twice: `limit=1&limit=2`.
        (repeat ? [...pairs, pairs[0]!] : pairs)
          .map(([key, value, how]) => {
            if (how === 'raw') return `${urlRaw(key)}=${urlRaw(value)}`;
            if (how === 'broken') return `${percentEncoded(key)}=${percentEncoded(value)}%E0%A4%A`;
            return `${percentEncoded(key)}=${percentEncoded(value)}`;
          })
          .join('&'),
      );

    /**
     * A body no mutating route accepts, whatever the route: each route's body is a JSON object of
     * known fields (the schemas are strict), so JSON that is not an object, broken JSON, a field no
     * schema knows, another content type or encoding, or a body over the limit is refused.
     */
    const invalidBody: fc.Arbitrary<Body> = fc.oneof(
      {
        arbitrary: withJsonType(
          fc
            .tuple(
              fc.oneof(
                eventCreateBody,
                eventUpdateBody,
                tierCreateBody(eventIds),
                checkinBody(ticketIds, codes, eventIds),
                fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue()),
              ),
              fc.string({ maxLength: 10 }),
              oddJson,
            )
            .map(([fields, name, value]) => Buffer.from(withUnknownField(fields, name, value))),
        ),
        weight: 4,
      },
      {
        arbitrary: withJsonType(
          oddJson.filter((text) => !text.startsWith('{')).map((text) => Buffer.from(text)),
        ),
        weight: 2,
      },
      {
        // Cut short.
        arbitrary: withJsonType(
          fc
            .tuple(fc.oneof(eventCreateBody, checkinBody(ticketIds, codes, eventIds)), fc.nat())
            .map(([fields, cut]) => {
              const text = JSON.stringify(fields);
              return Buffer.from(text.slice(0, cut % text.length));
            }),
        ),
        weight: 1,
      },
      {
        arbitrary: withJsonType(
          fc
            .constantFrom(
              "{'name': 'x'}",
              '{"name": "x",}',
              '{"a":1}}',
              '{"a":1}{"b":2}',
              '{"a":NaN}',
              '{"a":Infinity}',
              '{"a":undefined}',
              '{"a":0x10}',
              '{"a":"\\u00"}',
              '{"a":"\\x41"}',
              '{"a":"line\nbreak"}',
              '{a:1}',
              '{',
              '}',
              '/* */{}',
              '\uFEFF{}',
              'not json',
            )
            .map((text) => Buffer.from(text)),
        ),
        weight: 1,
      },
      {
        // Bytes that are not UTF-8, in a field no route knows (or breaking the JSON).
        arbitrary: withJsonType(
          fc
            .tuple(
              fc.oneof(eventCreateBody, checkinBody(ticketIds, codes, eventIds)),
              fc.constantFrom(...INVALID_UTF8),
              fc.string({ maxLength: 10 }),
            )
            .map(([fields, bytes, after]) => {
              const [head, tail] = withUnknownField(fields, 'bytes', '"\u0001"').split('\u0001');
              return Buffer.concat([
                Buffer.from(head!),
                Buffer.from(bytes),
                Buffer.from(JSON.stringify(after).slice(1, -1)),
                Buffer.from(tail!),
              ]);
            }),
        ),
        weight: 1,
      },
      {
        // Another content type, or none, even for a valid body.
        arbitrary: fc
          .tuple(
            fc.oneof(eventCreateBody, checkinBody(ticketIds, codes, eventIds)),
            fc.option(
              fc.oneof(
                fc.constantFrom(...OTHER_TYPES),
                fc
                  .string({ maxLength: 30 })
                  .map(headerSafe)
                  .filter((type) => !/json/i.test(type)),
              ),
              { nil: undefined },
            ),
          )
          .map(([fields, type]): Body => ({ bytes: Buffer.from(JSON.stringify(fields)), type })),
        weight: 2,
      },
      {
        arbitrary: withJsonType(
          fc
            .integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT + 20_000 })
            .map((n) => Buffer.from(JSON.stringify({ name: 'y'.repeat(n) }))),
        ),
        weight: 1,
      },
      {
        // An encoding the bytes are not in, or a compressed body that is still unacceptable.
        arbitrary: fc
          .tuple(
            fc.constantFrom('gzip', 'deflate', 'br', 'compress', 'x-unknown', 'gzip, gzip'),
            fc.constantFrom(...JSON_TYPES),
            fc.boolean(),
          )
          .map(([encoding, type, compressed]): Body => ({
            bytes: compressed
              ? gzipSync(Buffer.from('{"x_hostile":1}'))
              : Buffer.from('{"name":"x"}'),
            type,
            encoding: compressed ? 'gzip' : encoding,
          })),
        weight: 1,
      },
    );

    /** Any body, also valid ones for each route (they go with keys that must be refused). */
    const anyBody: fc.Arbitrary<Body> = fc.oneof(
      { arbitrary: invalidBody, weight: 3 },
      {
        arbitrary: withJsonType(
          fc
            .oneof(
              perturbed(eventCreateBody),
              perturbed(eventUpdateBody),
              perturbed(tierCreateBody(eventIds)),
              perturbed(tierUpdateBody),
              perturbed(checkinBody(ticketIds, codes, eventIds)),
            )
            .map((body) => Buffer.from(JSON.stringify(body))),
        ),
        weight: 3,
      },
      {
        arbitrary: fc
          .option(fc.constantFrom(...JSON_TYPES, ...OTHER_TYPES), { nil: undefined })
          .map((type): Body => ({ bytes: Buffer.alloc(0), type })),
        weight: 1,
      },
    );

    const headerText = fc.oneof(
      { arbitrary: fc.string({ maxLength: 40 }), weight: 4 },
      { arbitrary: shortText.map(headerSafe), weight: 2 },
      { arbitrary: fc.integer({ min: 129, max: 1_500 }).map((n) => 'k'.repeat(n)), weight: 1 },
    );
    const FRAMING_HEADERS = ['host', 'content-length', 'transfer-encoding', 'connection', 'expect'];
    /** Each header with its own chance of being there, in percent. */
    const optionalHeaders = fc
      .tuple(
        sometimes(
          40,
          fc.oneof(
            base62(1, 24),
            fc.string({ minLength: 0, maxLength: 255 }).map(headerSafe),
            fc.integer({ min: 250, max: 2_000 }).map((n) => 'i'.repeat(n)),
            fc.constantFrom('', ' ', '\u00e9t\u00e9'),
          ),
        ),
        sometimes(40, fc.oneof(headerText, fc.constantFrom('req-1', 'a/b:c@d+e=f', '../../x'))),
        sometimes(
          20,
          fc.oneof(
            headerText,
            fc.constantFrom(
              'bxo_session=%E0%A4%A',
              'bxo_session=',
              'bxo_session=x; bxo_session=y',
              '=;=;',
            ),
          ),
        ),
        sometimes(
          30,
          fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', ''),
        ),
        sometimes(15, fc.constantFrom('null', 'http://evil.example', '::::', 'http://127.0.0.1')),
        sometimes(5, fc.constantFrom('100-continue', '100-Continue', 'something-else', '')),
        sometimes(10, fc.constantFrom('DELETE', 'PATCH', 'GET')),
        sometimes(10, headerText),
        sometimes(10, headerText),
      )
      .map((values) =>
        [
          'Idempotency-Key',
          'X-Request-Id',
          'Cookie',
          'Accept',
          'Origin',
          'Expect',
          'X-HTTP-Method-Override',
          'X-Forwarded-For',
          'X-CSRF-Token',
        ].flatMap((name, index): [string, string][] =>
          values[index] === undefined ? [] : [[name, values[index]]],
        ),
      );
    const randomHeader = fc.tuple(
      fc
        .stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/)
        .filter((name) => !FRAMING_HEADERS.includes(name.toLowerCase())),
      headerText,
    );

    const methodArb = fc.oneof(
      { arbitrary: fc.constantFrom('GET', 'HEAD', 'POST', 'PATCH'), weight: 12 },
      { arbitrary: fc.constantFrom('PUT', 'DELETE', 'OPTIONS'), weight: 4 },
      {
        arbitrary: fc.constantFrom(
          'TRACE',
          'PROPFIND',
          'PURGE',
          'QUERY',
          'SEARCH',
          'M-SEARCH',
          'LINK',
          'UNLINK',
          'COPY',
          'LOCK',
        ),
        weight: 1,
      },
    );

    /**
     * A fault the HTTP parser itself refuses (or, for CONNECT, that never reaches Express): the
     * server must still answer with the JSON envelope.
     */
    type Fault = (request: RawRequest) => RawRequest;
    const fault: fc.Arbitrary<Fault> = fc.oneof(
      fc
        .stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,12}$/)
        .map((method): Fault => (request) => ({ ...request, method })),
      fc
        .constantFrom('get', 'Post', 'CONNECT', 'G ET', '')
        .map((method): Fault => (request) => ({ ...request, method })),
      fc
        .constantFrom('HTTP/1.2', 'http/1.1', 'HTTP/1', 'HTTP/11.1', 'HTTP/1.1 x', 'HTTP/0.9')
        .map((version): Fault => (request) => ({ ...request, version })),
      fc
        .tuple(fc.constantFrom(' ', '\t', '\u007f', '\u0000', 'é', '🎟️', '\r'), fc.nat())
        .map(([text, at]): Fault => (request) => {
          const cut = at % (request.target.length + 1);
          const target = request.target.slice(0, cut) + wire(text) + request.target.slice(cut);
          return { ...request, target };
        }),
      fc
        .tuple(
          fc.constantFrom(
            'X-Broken',
            'X Broken',
            'X:Broken',
            '(x)',
            'Authorization',
            'Idempotency-Key',
          ),
          fc.constantFrom('a\u0000b', 'a\nb', 'a\rb', '\u0007', 'a\r\n b', 'ok'),
        )
        .map(([name, value]): Fault => (request) => ({
          ...request,
          headers: [...request.headers, [name, value]],
        })),
      fc
        .tuple(
          fc.constantFrom('Authorization', 'Cookie', 'X-Big'),
          fc.integer({ min: 17_000, max: 24_000 }),
        )
        .map(([name, size]): Fault => (request) => ({
          ...request,
          headers: [...request.headers, [name, 'B'.repeat(size)]],
        })),
      fc.integer({ min: 17_000, max: 30_000 }).map((size): Fault => (request) => ({
        ...request,
        target: `/api/v1/events/${'p'.repeat(size)}`,
      })),
      fc
        .constantFrom('length-and-chunked', 'two-lengths', 'bad-chunk')
        .map((framing): Fault => (request) => ({
          ...request,
          framing,
        })),
    );

    const hostileRequest = fc
      .record({
        route: fc.oneof(
          { arbitrary: routed, weight: 7 },
          { arbitrary: fc.record({ method: methodArb, path: pathArb }), weight: 3 },
        ),
        query: sometimes(60, queryArb),
        version: fc.oneof(
          { arbitrary: fc.constant('HTTP/1.1'), weight: 30 },
          { arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0'), weight: 1 },
        ),
        authorizations: fc.oneof(
          { arbitrary: fc.array(authorization, { minLength: 1, maxLength: 1 }), weight: 8 },
          { arbitrary: fc.array(authorization, { maxLength: 2 }), weight: 2 },
        ),
        anyBody,
        invalidBody,
        optional: optionalHeaders,
        random: sometimes(25, randomHeader),
        chunked: fc.boolean(),
        fault: sometimes(12, fault),
      })
      .map(({ route: { method, path }, ...r }): RawRequest => {
        const headers: [string, string][] = r.authorizations.map((value) => [
          'Authorization',
          value,
        ]);
        const target = r.query === undefined ? path : `${path}?${r.query}`;
        // With a key that may write, or on a route outside the keyed API (the dashboard has
        // public routes), a mutation only ever carries a body that no route accepts.
        const writing = r.authorizations.some((value) => writingKey(value) !== undefined);
        const mutation = method !== 'GET' && method !== 'HEAD';
        const body =
          mutation && (writing || !path.startsWith('/api/v1/')) ? r.invalidBody : r.anyBody;
        if (body.type !== undefined) headers.push(['Content-Type', body.type]);
        if (body.encoding !== undefined) headers.push(['Content-Encoding', body.encoding]);
        headers.push(...r.optional);
        if (r.random) headers.push(r.random);
        const request: RawRequest = {
          method,
          target,
          version: r.version,
          headers,
          body: body.bytes,
          framing:
            r.chunked && body.bytes.length > 0 && r.version === 'HTTP/1.1' ? 'chunked' : 'length',
        };
        return printable(r.fault ? r.fault(request) : request);
      });

    let requests = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(hostileRequest, { minLength: 40, maxLength: 90 }),
        async (batch) => {
          const before = await snapshot(organisationIds, [...apiKeyIdOf.values()]);
          const outcomes = await inParallel(batch, PARALLEL, (request) => send(server, request));
          requests += batch.length;
          const after = await snapshot(organisationIds, [...apiKeyIdOf.values()]);

          // The answers to each (API key, Idempotency-Key) of a key that may write.
          const answered = new Map<string, Set<number>>();
          batch.forEach((request, index) => {
            const response = checkAnswer(request, outcomes[index]!);
            // Nothing but a read succeeds.
            const mutation = request.method !== 'GET' && request.method !== 'HEAD';
            if (mutation && response.status < 400) {
              fail('a request that cannot be valid succeeded', request, outcomes[index]);
            }
            const key = headerValue(request, 'Idempotency-Key');
            for (const [name, value] of request.headers) {
              const apiKey = name === 'Authorization' ? writingKey(value) : undefined;
              if (apiKey === undefined || key === undefined) continue;
              const id = idempotencyId(apiKeyIdOf.get(apiKey)!, key);
              answered.set(id, new Set([...(answered.get(id) ?? []), response.status]));
            }
          });

          for (const table of ['organisations', ...TENANT_TABLES] as const) {
            expect(
              changesOf(before.rows[table], after.rows[table]),
              `rows of ${table} changed by requests that cannot be valid`,
            ).toEqual({ added: [], changed: [], removed: [] });
          }
          // A refused POST with an Idempotency-Key keeps its answer for replays (a 4xx other than
          // 409 and 429); nothing else may appear, and nothing kept may change.
          for (const [id, row] of before.idempotency) {
            expect(after.idempotency.get(id)?.hash, `idempotency record ${id} changed`).toBe(
              row.hash,
            );
          }
          for (const [id, row] of after.idempotency) {
            if (before.idempotency.has(id)) continue;
            const statuses = answered.get(id);
            expect(statuses, `idempotency record ${id} kept for no request`).toBeDefined();
            expect(row.state, id).toBe('done');
            expect([...statuses!], id).toContain(row.response_status);
            expect(row.response_status, id).toBeGreaterThanOrEqual(400);
            expect([409, 429], id).not.toContain(row.response_status);
            expect(typeof (row.response_body as { error?: unknown }).error, id).toBe('string');
          }
        },
      ),
      checkOptions(40),
    );
    if (!process.env.FC_RUNS && !process.env.FC_SEED) expect(requests).toBeGreaterThan(2000);
    await stillServing(owner.key);
  }, 240_000);

  it('writes exactly the rows its successful answers describe, for valid-looking mutations', async () => {
    const { tenant: owner, fixtures } = await tenantWithData(2, 8);
    const draft = await createEvent(
      { em: (await getTestOrm()).em.fork(), organisationId: owner.organisationId, livemode: true },
      {
        name: 'Draft night',
        timezone: 'Europe/Berlin',
        starts_at: '2027-10-01T18:00:00Z',
        ends_at: '2027-10-01T23:00:00Z',
        currency: 'EUR',
      },
    );
    const other = await tenantWithData(1, 2);
    const writer = await createKey(owner.organisationId, ['write']);
    const scanner = await createKey(owner.organisationId, ['checkins:write']);
    const reader = await createKey(owner.organisationId, ['read']);
    const apiKeyIdOf = new Map<string, string>([
      [owner.key, owner.apiKeyId],
      [writer.key, writer.apiKeyId],
      [scanner.key, scanner.apiKeyId],
      [reader.key, reader.apiKeyId],
    ]);
    const organisationIds = [owner.organisationId];
    const apiKeyIds = [...apiKeyIdOf.values()];

    const theirs = other.fixtures[0]!;
    const tickets = [...fixtures.flatMap((f) => f.tickets), ...theirs.tickets];
    const ids = (own: string[], foreign: string, prefix: string) =>
      fc.oneof(
        { arbitrary: fc.constantFrom(...own), weight: 8 },
        { arbitrary: fc.constant(foreign), weight: 1 },
        { arbitrary: base62(16, 24).map((random) => `${prefix}_${random}`), weight: 1 },
      );
    const eventIds = ids([...fixtures.map((f) => f.event.id), draft.id], theirs.event.id, 'evt');
    const tierIds = ids(
      fixtures.map((f) => f.tier.id),
      theirs.tier.id,
      'tier',
    );
    const ticketIds = fc.constantFrom(...tickets.map((t) => t.id));
    const codes = fc.constantFrom(...tickets.map((t) => t.code));

    type Body = fc.Arbitrary<Record<string, unknown>>;
    /** POSTs to `path` of `bodies`, now and then broken; `weight` as in `fc.oneof`. */
    const creates = (path: string, bodies: Body, weight: number) => ({
      arbitrary: perturbed(bodies).map((body) => ({ method: 'POST', path, body })),
      weight,
    });
    /** PATCHes of `path/{id}` for `ids`, of `bodies`, now and then broken. */
    const updates = (path: string, ids: fc.Arbitrary<string>, bodies: Body, weight: number) => ({
      arbitrary: fc
        .tuple(ids, perturbed(bodies))
        .map(([id, body]) => ({ method: 'PATCH', path: `${path}/${id}`, body })),
      weight,
    });
    const mutation = fc.oneof(
      creates('/api/v1/events', eventCreateBody, 3),
      updates('/api/v1/events', eventIds, eventUpdateBody, 3),
      creates('/api/v1/tiers', tierCreateBody(eventIds), 2),
      updates('/api/v1/tiers', tierIds, tierUpdateBody, 2),
      creates('/api/v1/checkins', checkinBody(ticketIds, codes, eventIds), 5),
    );
    const attempt = fc.record({
      mutation,
      key: fc.oneof(
        { arbitrary: fc.constant(owner.key), weight: 6 },
        { arbitrary: fc.constantFrom(writer.key, scanner.key), weight: 3 },
        { arbitrary: fc.constant(reader.key), weight: 1 },
      ),
      idempotencyKey: sometimes(35, fc.constantFrom('a', 'b', 'c')),
    });

    let batches = 0;
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(attempt, { minLength: 20, maxLength: 50 }), async (attempts) => {
        batches += 1;
        // Idempotency keys are fresh for each batch, and shared by the requests of one batch.
        const batch = attempts.map(({ mutation: { method, path, body }, key, idempotencyKey }) => {
          const request = plainRequest(method, path, [['Authorization', bearer(key)]], body);
          if (idempotencyKey !== undefined) {
            request.headers.push(['Idempotency-Key', `batch-${batches}-${idempotencyKey}`]);
          }
          return printable(request);
        });
        const before = await snapshot(organisationIds, apiKeyIds);
        const theirsBefore = await snapshot([other.tenant.organisationId], [other.tenant.apiKeyId]);
        const outcomes = await inParallel(batch, PARALLEL, (request) => send(server, request));
        requests += batch.length;
        const after = await snapshot(organisationIds, apiKeyIds);
        const theirsAfter = await snapshot([other.tenant.organisationId], [other.tenant.apiKeyId]);

        interface Success {
          request: RawRequest;
          data: any;
          replayed: boolean;
        }
        const created = {
          events: [] as Success[],
          ticket_tiers: [] as Success[],
          checkins: [] as Success[],
        };
        const updated = { events: [] as Success[], ticket_tiers: [] as Success[] };
        /** First answers per (API key, Idempotency-Key), and replays. */
        const firsts = new Map<string, RawResponse[]>();
        const replays: [string, RawRequest, RawResponse][] = [];
        batch.forEach((request, index) => {
          const response = checkAnswer(request, outcomes[index]!);
          const replayed = response.headers['idempotent-replayed'] === 'true';
          const key = headerValue(request, 'Idempotency-Key');
          if (key !== undefined) {
            const id = idempotencyId(
              apiKeyIdOf.get(headerValue(request, 'Authorization')!.slice(7))!,
              key,
            );
            if (replayed) replays.push([id, request, response]);
            else firsts.set(id, [...(firsts.get(id) ?? []), response]);
          }
          if (response.status >= 300) return;
          const expected = request.method === 'POST' ? 201 : 200;
          if (response.status !== expected)
            fail(`a ${response.status} answer`, request, outcomes[index]);
          const success = { request, data: jsonOf(response).data, replayed };
          const table = request.target.startsWith('/api/v1/events')
            ? 'events'
            : request.target.startsWith('/api/v1/tiers')
              ? 'ticket_tiers'
              : 'checkins';
          if (request.method === 'POST') created[table].push(success);
          else if (table !== 'checkins') updated[table].push(success);
        });

        // A replay repeats the first answer to the same key, status and body.
        for (const [id, request, response] of replays) {
          const original = (firsts.get(id) ?? []).find(
            (first) => first.status === response.status && first.body.equals(response.body),
          );
          if (!original) fail('a replay of no answer of this batch', request, { response });
        }

        const connection = (await getTestOrm()).em.fork().getConnection();
        const rowsOf = async (table: string, rowIds: string[]) =>
          rowIds.length === 0
            ? new Map<string, any>()
            : new Map(
                (
                  await connection.execute<any[]>(
                    `select * from ${table} where id in (${rowIds.map(() => '?').join(', ')})`,
                    rowIds,
                  )
                ).map((row) => [row.id as string, row]),
              );
        // PostgreSQL's text form (`0001-01-01 00:00:00+00`) as ISO 8601 before parsing: `Date`
        // reads the former's year 1 as 2001.
        const iso = (value: Date | string | null) =>
          value === null
            ? null
            : new Date(
                typeof value === 'string'
                  ? value.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')
                  : value,
              ).toISOString();

        // Rows appear exactly for the 201s (a replay creates nothing), and hold what they said.
        for (const table of ['events', 'ticket_tiers', 'checkins'] as const) {
          const changes = changesOf(before.rows[table], after.rows[table]);
          const fresh = created[table].filter((success) => !success.replayed);
          expect(changes.removed, `rows removed from ${table}`).toEqual([]);
          expect(changes.added.sort(), `rows added to ${table}`).toEqual(
            fresh.map((success) => success.data.id as string).sort(),
          );
          for (const success of created[table].filter((s) => s.replayed)) {
            expect(
              fresh.map((s) => s.data.id),
              'a replayed 201 names a row of this batch',
            ).toContain(success.data.id);
          }
        }
        const newRows = {
          events: await rowsOf(
            'events',
            created.events.map((s) => s.data.id),
          ),
          ticket_tiers: await rowsOf(
            'ticket_tiers',
            created.ticket_tiers.map((s) => s.data.id),
          ),
          checkins: await rowsOf(
            'checkins',
            created.checkins.map((s) => s.data.id),
          ),
        };
        const eventMatches = (row: any, data: any) =>
          row.name === data.name &&
          row.description === data.description &&
          row.venue === data.venue &&
          row.timezone === data.timezone &&
          iso(row.starts_at) === data.starts_at &&
          iso(row.ends_at) === data.ends_at &&
          row.currency === data.currency &&
          row.capacity === data.capacity &&
          row.status === data.status &&
          iso(row.updated_at) === data.updated_at;
        const tierMatches = (row: any, data: any) =>
          row.event_id === data.event_id &&
          row.name === data.name &&
          row.description === data.description &&
          row.price === data.price &&
          row.quantity_total === data.quantity_total &&
          row.max_per_order === data.max_per_order &&
          row.sort_order === data.sort_order &&
          row.status === data.status &&
          iso(row.updated_at) === data.updated_at;
        const rowChecks = [
          ['events', 'event', eventMatches],
          ['ticket_tiers', 'tier', tierMatches],
        ] as const;
        for (const [table, noun, matches] of rowChecks) {
          for (const success of created[table].filter((s) => !s.replayed)) {
            const row = newRows[table].get(success.data.id);
            if (!matches(row, success.data)) {
              fail(`${noun} row ${JSON.stringify(row)} differs from the answer`, success.request, {
                response: {
                  status: 201,
                  headers: {},
                  body: Buffer.from(JSON.stringify(success.data)),
                },
              });
            }
          }
        }
        for (const success of created.checkins.filter((s) => !s.replayed)) {
          const row = newRows.checkins.get(success.data.id);
          expect(
            [
              row.ticket_id,
              row.direction,
              row.gate,
              row.device_id,
              iso(row.scanned_at),
              iso(row.created_at),
              row.api_key_id,
            ],
            'check-in row',
          ).toEqual([
            success.data.ticket_id,
            success.data.direction,
            success.data.gate,
            success.data.device_id,
            success.data.scanned_at,
            success.data.created_at,
            success.data.api_key_id,
          ]);
        }

        // Rows change only by a 200 PATCH of theirs, and end as one of those answers says.
        for (const table of ['events', 'ticket_tiers'] as const) {
          const changed = changesOf(before.rows[table], after.rows[table]).changed;
          const rows = await rowsOf(table, changed);
          const matches = table === 'events' ? eventMatches : tierMatches;
          for (const id of changed) {
            const answers = updated[table].filter((s) => s.data.id === id);
            expect(answers.length, `${table} row ${id} changed without a 200`).toBeGreaterThan(0);
            expect(
              answers.some((s) => matches(rows.get(id), s.data)),
              `${table} row ${id} is none of its answers: ${JSON.stringify(rows.get(id))}`,
            ).toBe(true);
          }
        }

        // A ticket (and its attendee) changes only by a check-in, and ends as the last one says.
        const scans = created.checkins.filter((s) => !s.replayed).map((s) => s.data);
        const ticketChanges = changesOf(before.rows.tickets, after.rows.tickets);
        expect(
          [...ticketChanges.added, ...ticketChanges.removed],
          'tickets added or removed',
        ).toEqual([]);
        const ticketRows = await rowsOf('tickets', ticketChanges.changed);
        for (const id of ticketChanges.changed) {
          const mine = scans.filter((scan) => scan.ticket_id === id);
          expect(mine.length, `ticket ${id} changed without a check-in`).toBeGreaterThan(0);
          const last = mine.reduce((a, b) => (b.created_at > a.created_at ? b : a));
          const row = ticketRows.get(id);
          const candidates = mine.filter((scan) => scan.created_at === last.created_at);
          expect(iso(row.updated_at), `ticket ${id}`).toBe(last.created_at);
          expect(
            candidates.map((scan) => (scan.direction === 'entry' ? 'checked_in' : 'valid')),
            `ticket ${id}`,
          ).toContain(row.status);
        }
        const attendeeChanges = changesOf(before.rows.attendees, after.rows.attendees);
        expect([...attendeeChanges.added, ...attendeeChanges.removed], 'attendees').toEqual([]);
        for (const id of attendeeChanges.changed) {
          expect(
            scans.map((scan) => scan.attendee_id),
            `attendee ${id} changed`,
          ).toContain(id);
        }
        for (const table of ['organisations', 'orders', 'payouts'] as const) {
          expect(changesOf(before.rows[table], after.rows[table]), table).toEqual({
            added: [],
            changed: [],
            removed: [],
          });
        }
        for (const table of ['organisations', ...TENANT_TABLES] as const) {
          expect(
            changesOf(theirsBefore.rows[table], theirsAfter.rows[table]),
            `another organisation's ${table}`,
          ).toEqual({ added: [], changed: [], removed: [] });
        }

        // Each kept idempotency record is the first answer to its key.
        for (const [id, row] of after.idempotency) {
          if (before.idempotency.get(id)?.hash === row.hash) continue;
          expect(before.idempotency.has(id), `idempotency record ${id} rewritten`).toBe(false);
          expect(row.state, id).toBe('done');
          const answers = firsts.get(id) ?? [];
          expect(
            answers.some(
              (answer) =>
                answer.status === row.response_status &&
                isDeepStrictEqual(jsonOf(answer), row.response_body),
            ),
            `idempotency record ${id} (${row.response_status}) is no answer of its key`,
          ).toBe(true);
        }
      }),
      checkOptions(30),
    );
    if (!process.env.FC_RUNS && !process.env.FC_SEED) expect(requests).toBeGreaterThan(800);
    await stillServing(owner.key);
  }, 240_000);
});
