import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import pino, { type DestinationStream } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/app';
import { randomBase62 } from '../src/core/ids';
import { createOrm, type Orm } from '../src/db/orm';
import { entities } from '../src/modules/entities';
import { closeLogger, createLogger } from '../src/http/logger';
import { createRateLimits } from '../src/http/rate-limit';
import { buildEvent, eventInput } from './fixtures';
import {
  call,
  closedPort,
  createTenant,
  getTestOrm,
  type CallOptions,
  type CallResult,
  type TestTenant,
} from './setup';

type LogRecord = Record<string, unknown>;

/** Where the logger writes: every line kept, for the assertions. */
class CapturedLog implements DestinationStream {
  readonly lines: string[] = [];
  write(line: string): void {
    this.lines.push(line);
  }
  get text(): string {
    return this.lines.join('');
  }
  records(): LogRecord[] {
    return this.lines.map((line) => JSON.parse(line) as LogRecord);
  }
  /** The request line of `requestId` (written when the response is done, maybe after the client saw it). */
  request(requestId: string): Promise<LogRecord> {
    return vi.waitFor(
      () => {
        const found = this.records().find(
          (record) => record.requestId === requestId && 'status' in record,
        );
        if (!found) throw new Error(`no log line for ${requestId}`);
        return found;
      },
      { timeout: 2000, interval: 5 },
    );
  }
}

interface LoggedServer {
  baseUrl: string;
  log: CapturedLog;
  close(): Promise<void>;
}

async function startLoggedServer(orm: Orm): Promise<LoggedServer> {
  const log = new CapturedLog();
  const app = createApp({
    orm,
    rateLimits: createRateLimits({ readsPerMinute: 100_000, writesPerMinute: 100_000 }),
    logger: createLogger({ LOG_LEVEL: 'info', NODE_ENV: 'test' }, log),
    bodyLimitBytes: 100 * 1024,
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let server: LoggedServer;
let tenant: TestTenant;
beforeAll(async () => {
  server = await startLoggedServer(await getTestOrm());
  tenant = await createTenant();
});
afterAll(() => server.close());

let sequence = 0;
const requestId = () => `req_logging_test_${Date.now()}_${(sequence += 1)}`;

/**
 * A request under a fresh request id, answered with `status`: the answer, and the line logged for
 * it.
 */
async function logged(
  target: LoggedServer,
  method: string,
  path: string,
  status: number,
  options: CallOptions = {},
): Promise<{ result: CallResult; line: LogRecord; id: string }> {
  const id = requestId();
  const result = await call(target, method, path, {
    ...options,
    headers: { ...options.headers, 'x-request-id': id },
  });
  expect(result.status).toBe(status);
  return { result, line: await target.log.request(id), id };
}

describe('one line per request', () => {
  it('has the request id, method, route pattern, status, duration and key id', async () => {
    const { event } = await buildEvent(tenant.organisationId);
    const { line, id } = await logged(server, 'GET', `/api/v1/events/${event.id}`, 200, {
      key: tenant.key,
    });
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      requestId: id,
      method: 'GET',
      route: '/api/v1/events/:id',
      status: 200,
      keyId: tenant.apiKeyId,
    });
    expect(line.durationMs).toEqual(expect.any(Number));
    expect(line.durationMs).toBeGreaterThan(0);
    expect(line).not.toHaveProperty('userId');
    // The pattern, never the raw path with its ids or the query.
    const raw = JSON.stringify(line);
    expect(raw).not.toContain(event.id);
  });

  it('has the route pattern of a list, not its query', async () => {
    const { line, id } = await logged(
      server,
      'GET',
      '/api/v1/events?q=unlogged-search-words',
      200,
      {
        key: tenant.key,
      },
    );
    expect(line).toMatchObject({ requestId: id, route: '/api/v1/events', status: 200 });
    expect(JSON.stringify(line)).not.toContain('unlogged-search-words');
  });

  it('names the SDK and its retry count for the SDK’s calls, and nothing for others', async () => {
    const { event } = await buildEvent(tenant.organisationId);
    const read = (headers: Record<string, string>) =>
      logged(server, 'GET', `/api/v1/events/${event.id}`, 200, { key: tenant.key, headers });
    const retried = await read({
      'user-agent': 'boxoffice-sdk/0.2.0 node/24.11.1 (linux x64)',
      'x-boxoffice-retry-count': '2',
    });
    expect(retried.line).toMatchObject({ sdk: 'boxoffice-sdk/0.2.0', retry: 2 });

    const { line } = await read({ 'user-agent': 'curl/8.5.0', 'x-boxoffice-retry-count': '1' });
    expect(line).not.toHaveProperty('sdk');
    expect(line).not.toHaveProperty('retry');
  });

  it('never has the key, the Authorization header or a body', async () => {
    const { result, line } = await logged(server, 'POST', '/api/v1/events', 201, {
      key: tenant.key,
      body: eventInput('Body marker 7f3c'),
    });
    expect(line).toMatchObject({ route: '/api/v1/events', status: 201, keyId: tenant.apiKeyId });
    expect(server.log.text).not.toContain(tenant.key);
    expect(server.log.text).not.toContain('Body marker 7f3c');
    expect(server.log.text).not.toMatch(/authorization/i);
    expect(server.log.text).not.toContain(result.body.data.id);
  });

  it('has no key id when the key was refused, and not the attempted key either', async () => {
    const attempted = `bxo_live_${randomBase62(40)}`;
    const { line } = await logged(server, 'GET', '/api/v1/events', 401, { key: attempted });
    expect(line).toMatchObject({ route: '/api/v1/events', status: 401, level: 30 });
    expect(line).not.toHaveProperty('keyId');
    expect(server.log.text).not.toContain(attempted);
  });

  it('names requests no route matched by one label, not their path', async () => {
    const { line } = await logged(server, 'GET', '/api/v1/nothing-here/evt_12345', 404, {
      key: tenant.key,
    });
    expect(line).toMatchObject({ route: 'unmatched', status: 404, method: 'GET' });
    expect(server.log.text).not.toContain('nothing-here');
  });

  it('names the app’s own routes and mounted pages', async () => {
    const health = await logged(server, 'GET', '/healthz', 200);
    expect(health.line).toMatchObject({ route: '/healthz', status: 200 });
    const docs = requestId();
    await call(server, 'GET', '/docs', { headers: { 'x-request-id': docs } });
    expect(await server.log.request(docs)).toMatchObject({ route: '/docs' });
  });

  it('has the user id on dashboard requests, and neither cookies nor session tokens', async () => {
    const signup = await logged(server, 'POST', '/dashboard/api/signup', 201, {
      body: {
        organisation_name: 'Logged Hall',
        email: `logged${Date.now()}@example.com`,
        password: 'a long passphrase',
      },
    });
    const created = signup.result;
    const setCookie = created.headers.get('set-cookie')!;
    const cookie = setCookie.split(';')[0]!;
    const token = cookie.split('=')[1]!;
    expect(signup.line).toMatchObject({ route: '/dashboard/api/signup', status: 201 });

    const { result, line } = await logged(server, 'GET', '/dashboard/api/session', 200, {
      headers: { cookie: `${cookie}; other=crumb-value` },
    });
    expect(line).toMatchObject({
      route: '/dashboard/api/session',
      status: 200,
      userId: created.body.user.id,
    });
    expect(line).not.toHaveProperty('keyId');
    expect(server.log.text).not.toContain(token);
    expect(server.log.text).not.toContain(decodeURIComponent(token));
    expect(server.log.text).not.toContain('crumb-value');
    expect(server.log.text).not.toContain(result.body.csrf_token);
  });
});

describe('failures', () => {
  let orm: Orm;
  let offline: LoggedServer;
  beforeAll(async () => {
    orm = await createOrm({
      entities,
      databaseUrl: `postgres://postgres:offline-db-secret@127.0.0.1:${await closedPort()}/x`,
      connectTimeoutMs: 500,
    });
    offline = await startLoggedServer(orm);
  });
  afterAll(async () => {
    await offline.close();
    await orm.close();
  });

  it('logs a 5xx answer at error level', async () => {
    const { line, id } = await logged(offline, 'GET', '/api/v1/events', 503, { key: tenant.key });
    expect(line).toMatchObject({
      level: 50,
      msg: 'request failed',
      route: '/api/v1/events',
      status: 503,
    });
    // The error handler's own line about the outage carries the same request id.
    expect(offline.log.records()).toContainEqual(
      expect.objectContaining({ requestId: id, msg: 'backing store unavailable' }),
    );
    expect(offline.log.text).not.toContain('offline-db-secret');
  });
});

describe('createLogger', () => {
  it('redacts Authorization, Cookie and Set-Cookie wherever headers are logged', () => {
    const log = new CapturedLog();
    const logger = createLogger({ LOG_LEVEL: 'info', NODE_ENV: 'production' }, log);
    logger.info(
      {
        req: { headers: { authorization: 'Bearer bxo_live_secret1', cookie: 'bxo_session=s1' } },
        res: { headers: { 'set-cookie': 'bxo_session=s2; HttpOnly' } },
        headers: { authorization: 'Bearer bxo_live_secret3', cookie: 'a=s4' },
      },
      'headers',
    );
    const [record] = log.records();
    expect(record).toMatchObject({
      req: { headers: { authorization: '[redacted]', cookie: '[redacted]' } },
      res: { headers: { 'set-cookie': '[redacted]' } },
      headers: { authorization: '[redacted]', cookie: '[redacted]' },
    });
    expect(log.text).not.toMatch(/secret\d|s\d\b|HttpOnly/);
  });

  it('removes connection-string passwords and the metrics token from logged errors', () => {
    const log = new CapturedLog();
    const logger = createLogger(
      {
        LOG_LEVEL: 'info',
        NODE_ENV: 'production',
        DATABASE_URL: 'postgres://app:db-pass-4471@db/boxoffice',
        REDIS_URL: 'redis://:redis-pass-9932@cache:6379',
        METRICS_TOKEN: 'metrics-token-5521-abcdef',
      },
      log,
    );
    logger.error(
      { err: new Error('cannot reach postgres://app:db-pass-4471@db/boxoffice') },
      'database down',
    );
    logger.warn({ err: new Error('redis://:redis-pass-9932@cache:6379 refused') }, 'redis error');
    logger.error({ err: new Error('bad token metrics-token-5521-abcdef') }, 'odd');
    expect(log.lines).toHaveLength(3);
    expect(log.text).toContain('postgres://app:[redacted]@db/boxoffice');
    expect(log.text).not.toMatch(/db-pass|redis-pass|metrics-token-5521/);
  });

  it('writes JSON lines at the configured level', () => {
    const log = new CapturedLog();
    const logger = createLogger({ LOG_LEVEL: 'warn', NODE_ENV: 'development' }, log);
    logger.info('hidden');
    logger.warn('shown');
    expect(log.records()).toEqual([expect.objectContaining({ level: 40, msg: 'shown' })]);
  });

  it('writes out every pending line, in order, when closed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'boxoffice-log-'));
    try {
      const file = path.join(dir, 'out.log');
      const logger = createLogger(
        { LOG_LEVEL: 'info', NODE_ENV: 'production' },
        pino.destination({ dest: file, sync: false, mkdir: true }),
      );
      for (let i = 0; i < 500; i++) logger.info({ i }, 'line');
      await closeLogger(logger);
      const written = (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { i: number }).i);
      expect(written).toEqual(Array.from({ length: 500 }, (_, i) => i));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
