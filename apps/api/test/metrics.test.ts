import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createApp } from '../src/app';
import { createMetrics, metricsListener, type Metrics } from '../src/http/metrics';
import { createRateLimits } from '../src/http/rate-limit';
import { buildEvent, cancelFixtureOrder } from './fixtures';
import { call, closedPort, createTenant, getTestOrm, type CallOptions } from './setup';

const TOKEN = 'test-metrics-token-0123456789';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key!] = value!;
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample of `name` with (at least) `labels`; undefined if none. */
function valueOf(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samples.filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match`);
  return found[0]?.value;
}

interface MetricsServer {
  baseUrl: string;
  metrics: Metrics;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const closing = (server: Server) => () =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

async function startServer(options: { metricsToken?: string } = {}): Promise<MetricsServer> {
  const orm = await getTestOrm();
  const metrics = createMetrics({ orm });
  const app = createApp({
    orm,
    rateLimits: createRateLimits({ readsPerMinute: 5, writesPerMinute: 8 }),
    logger: pino({ level: 'silent' }),
    bodyLimitBytes: 100 * 1024,
    metrics,
    metricsToken: options.metricsToken,
  });
  const server = createServer(app);
  return { baseUrl: await listen(server), metrics, close: closing(server) };
}

let server: MetricsServer;
beforeAll(async () => {
  server = await startServer({ metricsToken: TOKEN });
});
afterAll(() => server.close());

/** Scrapes `/metrics` on the main port, as Prometheus would. */
async function scrape(target: Pick<MetricsServer, 'baseUrl'> = server): Promise<Sample[]> {
  const result = await call(target, 'GET', '/metrics', {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(result.status).toBe(200);
  expect(result.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parse(result.body as string);
}

/** The request is logged (and counted) once its response is done, maybe after the client saw it. */
const settled = <T>(check: () => Promise<T>) => vi.waitFor(check, { timeout: 2000, interval: 10 });

describe('/metrics on the main port', () => {
  it('is refused without the token, or with another', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-the-token-0123456789' },
    ];
    for (const headers of attempts) {
      const result = await call(server, 'GET', '/metrics', { headers });
      expect(result.status).toBe(401);
      expect(result.body).toEqual({
        error: 'Invalid or missing metrics token',
        code: 'invalid_metrics_token',
      });
      expect(result.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    const basic = await call(server, 'GET', '/metrics', {
      headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
    });
    expect(basic.status).toBe(401);
  });

  it('does not exist without a token', async () => {
    const plain = await startServer();
    try {
      const result = await call(plain, 'GET', '/metrics', {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(result.status).toBe(404);
      expect(result.body.code).toBe('route_not_found');
    } finally {
      await plain.close();
    }
  });
});

describe('request metrics', () => {
  it('count requests and their latency by method, route pattern and status', async () => {
    const tenant = await createTenant();
    const { event } = await buildEvent(tenant.organisationId);
    const labels = { method: 'GET', route: '/api/v1/events/:id', status: '200' };
    const before = valueOf(await scrape(), 'http_requests_total', labels) ?? 0;

    for (let i = 0; i < 2; i++) {
      const result = await call(server, 'GET', `/api/v1/events/${event.id}`, { key: tenant.key });
      expect(result.status).toBe(200);
    }
    const missing = await call(server, 'GET', '/api/v1/events/evt_doesnotexist000000', {
      key: tenant.key,
    });
    expect(missing.status).toBe(404);

    await settled(async () => {
      const samples = await scrape();
      expect(valueOf(samples, 'http_requests_total', labels)).toBe(before + 2);
      expect(valueOf(samples, 'http_request_duration_seconds_count', labels)).toBe(before + 2);
      expect(
        valueOf(samples, 'http_request_duration_seconds_bucket', { ...labels, le: '+Inf' }),
      ).toBe(before + 2);
      expect(valueOf(samples, 'http_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
      expect(
        valueOf(samples, 'http_requests_total', { ...labels, status: '404' }),
      ).toBeGreaterThanOrEqual(1);
      // No raw path (with its id) ever becomes a label.
      const routes = samples.map((sample) => sample.labels.route ?? '');
      expect(routes.some((route) => route.includes('evt_'))).toBe(false);
    });
  });

  it('collapse every unknown path into one label', async () => {
    const unmatched = { method: 'GET', route: 'unmatched', status: '404' };
    const before = valueOf(await scrape(), 'http_requests_total', unmatched) ?? 0;
    for (const path of ['/nope', '/api/v1/nothing/123', '/api/v2/events', '/wp-admin/x.php']) {
      expect((await call(server, 'GET', path)).status).toBe(404);
    }
    await settled(async () => {
      const samples = await scrape();
      expect(valueOf(samples, 'http_requests_total', unmatched)).toBe(before + 4);
      const routes = new Set(samples.map((sample) => sample.labels.route).filter(Boolean));
      for (const route of routes) expect(route).toMatch(/^(\/|unmatched$)/);
      expect([...routes].some((route) => /nope|nothing|wp-admin|v2/.test(route!))).toBe(false);
    });
  });

  it('name the app’s own routes', async () => {
    await call(server, 'GET', '/healthz');
    await settled(async () => {
      expect(
        valueOf(await scrape(), 'http_requests_total', {
          method: 'GET',
          route: '/healthz',
          status: '200',
        }),
      ).toBeGreaterThanOrEqual(1);
    });
  });
});

describe('rate-limit rejections', () => {
  it('are counted by class', async () => {
    const samples = await scrape();
    const before = {
      read: valueOf(samples, 'boxoffice_rate_limit_rejections_total', { class: 'read' }),
      write: valueOf(samples, 'boxoffice_rate_limit_rejections_total', { class: 'write' }),
    };
    // Both classes are there from the start, at zero or more.
    expect(before.read).toBeGreaterThanOrEqual(0);
    expect(before.write).toBeGreaterThanOrEqual(0);

    const tenant = await createTenant();
    const reads: number[] = [];
    for (let i = 0; i < 6; i++) {
      reads.push((await call(server, 'GET', '/api/v1/events', { key: tenant.key })).status);
    }
    expect(reads).toEqual([200, 200, 200, 200, 200, 429]);
    // Writes are counted before the body is validated: eight 400s, then a 429.
    const writes: number[] = [];
    for (let i = 0; i < 9; i++) {
      const options: CallOptions = { key: tenant.key, body: {} };
      writes.push((await call(server, 'POST', '/api/v1/events', options)).status);
    }
    expect(writes.filter((status) => status === 429)).toHaveLength(1);

    await settled(async () => {
      const after = await scrape();
      expect(valueOf(after, 'boxoffice_rate_limit_rejections_total', { class: 'read' })).toBe(
        before.read! + 1,
      );
      expect(valueOf(after, 'boxoffice_rate_limit_rejections_total', { class: 'write' })).toBe(
        before.write! + 1,
      );
      expect(
        valueOf(after, 'http_requests_total', {
          method: 'GET',
          route: '/api/v1/events',
          status: '429',
        }),
      ).toBeGreaterThanOrEqual(1);
    });
  });
});

describe('check-in metrics', () => {
  const admitted = (samples: Sample[], direction: string) =>
    valueOf(samples, 'boxoffice_checkins_admitted_total', { direction }) ?? 0;
  const rejected = (samples: Sample[], direction: string, reason: string) =>
    valueOf(samples, 'boxoffice_checkins_rejected_total', { direction, reason }) ?? 0;

  it('count admitted scans, and refused ones by reason', async () => {
    const tenant = await createTenant();
    const first = await buildEvent(tenant.organisationId, { tickets: 3 });
    const second = await buildEvent(tenant.organisationId, { tickets: 1 });
    const [t0, t1, t2] = first.tickets;
    const before = await scrape();

    const scan = async (body: Record<string, unknown>, status: number, code?: string) => {
      const result = await call(server, 'POST', '/api/v1/checkins', { key: tenant.key, body });
      expect(result.status, JSON.stringify(result.body)).toBe(status);
      if (code) expect(result.body.code).toBe(code);
    };
    await scan({ code: t0!.code }, 201);
    await scan({ ticket_id: t0!.id }, 409, 'already_checked_in');
    await scan({ code: 'no-such-barcode' }, 404, 'not_found');
    await scan({ ticket_id: t1!.id, event_id: second.event.id }, 422, 'wrong_event');
    await scan({ ticket_id: t2!.id, direction: 'exit' }, 409, 'not_checked_in');
    await scan({ ticket_id: t0!.id, direction: 'exit' }, 201);
    await cancelFixtureOrder(tenant.organisationId, second.order.id);
    await scan({ ticket_id: second.tickets[0]!.id }, 409, 'ticket_void');
    // A request the contract refuses never reaches the door: not a scan.
    await scan({ gate: 'North' }, 400, 'validation_failed');

    const after = await scrape();
    expect(admitted(after, 'entry') - admitted(before, 'entry')).toBe(1);
    expect(admitted(after, 'exit') - admitted(before, 'exit')).toBe(1);
    for (const [direction, reason] of [
      ['entry', 'already_checked_in'],
      ['entry', 'not_found'],
      ['entry', 'wrong_event'],
      ['entry', 'ticket_void'],
      ['exit', 'not_checked_in'],
    ] as const) {
      expect(rejected(after, direction, reason) - rejected(before, direction, reason)).toBe(1);
    }
    const reasons = new Set(
      after
        .filter((sample) => sample.name === 'boxoffice_checkins_rejected_total')
        .map((sample) => sample.labels.reason),
    );
    expect(reasons).not.toContain('validation_failed');
  });

  it('count an idempotent replay once', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const before = admitted(await scrape(), 'entry');
    for (let i = 0; i < 2; i++) {
      const result = await call(server, 'POST', '/api/v1/checkins', {
        key: tenant.key,
        body: { ticket_id: tickets[0]!.id },
        headers: { 'idempotency-key': `scan-${tickets[0]!.id}` },
      });
      expect(result.status).toBe(201);
    }
    expect(admitted(await scrape(), 'entry') - before).toBe(1);
  });

  it('count the scans of a batch that ran, not those answered for their key', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const before = await scrape();
    const scans = [
      { ticket_id: tickets[0]!.id, idempotency_key: `in-${tickets[0]!.id}` },
      { ticket_id: tickets[0]!.id, direction: 'exit' },
    ];
    for (let i = 0; i < 2; i++) {
      const result = await call(server, 'POST', '/api/v1/checkins/batch', {
        key: tenant.key,
        body: { checkins: scans },
      });
      expect(result.status).toBe(200);
    }
    const after = await scrape();
    expect(admitted(after, 'entry') - admitted(before, 'entry')).toBe(1);
    expect(admitted(after, 'exit') - admitted(before, 'exit')).toBe(1);
    expect(
      rejected(after, 'exit', 'not_checked_in') - rejected(before, 'exit', 'not_checked_in'),
    ).toBe(1);
  });
});

describe('database pool and process metrics', () => {
  it('report the pool behind the ORM when scraped', async () => {
    const samples = await scrape();
    expect(valueOf(samples, 'boxoffice_db_pool_max_connections')).toBe(20);
    expect(valueOf(samples, 'boxoffice_db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'boxoffice_db_pool_idle_connections')).toBeGreaterThanOrEqual(0);
    expect(valueOf(samples, 'boxoffice_db_pool_waiting_requests')).toBeGreaterThanOrEqual(0);
    expect(valueOf(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(valueOf(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(valueOf(samples, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });
});

describe('one registry per app', () => {
  it('keeps the counters of two apps in one process apart', async () => {
    const other = await startServer({ metricsToken: TOKEN });
    try {
      const route = { method: 'GET', route: '/healthz', status: '200' };
      const mine = valueOf(await scrape(), 'http_requests_total', route) ?? 0;
      for (let i = 0; i < 3; i++) await call(other, 'GET', '/healthz');
      await settled(async () => {
        expect(valueOf(await scrape(other), 'http_requests_total', route)).toBe(3);
      });
      expect(valueOf(await scrape(), 'http_requests_total', route)).toBe(mine);
    } finally {
      await other.close();
    }
  });
});

describe('the metrics port', () => {
  it('serves GET /metrics and nothing else', async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.observeRequest('GET', '/healthz', 200, 0.003);
    const server = createServer(metricsListener(metrics));
    const target = { baseUrl: await listen(server) };
    try {
      const scraped = await call(target, 'GET', '/metrics');
      expect(scraped.status).toBe(200);
      expect(
        valueOf(parse(scraped.body as string), 'http_requests_total', { route: '/healthz' }),
      ).toBe(1);
      expect(scraped.body).not.toContain('process_cpu');
      expect((await call(target, 'GET', '/')).status).toBe(404);
      expect((await call(target, 'GET', '/api/v1/events')).status).toBe(404);
      expect((await call(target, 'POST', '/metrics')).status).toBe(405);
    } finally {
      await closing(server)();
    }
  });

  it('requires the token when one is set', async () => {
    const server = createServer(metricsListener(createMetrics({ processMetrics: false }), TOKEN));
    const target = { baseUrl: await listen(server) };
    try {
      expect((await call(target, 'GET', '/metrics')).status).toBe(401);
      const wrong = { authorization: 'Bearer wrong-token-0123456789' };
      expect((await call(target, 'GET', '/metrics', { headers: wrong })).status).toBe(401);
      const right = { authorization: `Bearer ${TOKEN}` };
      expect((await call(target, 'GET', '/metrics', { headers: right })).status).toBe(200);
    } finally {
      await closing(server)();
    }
  });
});

describe('the server process', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
  });

  it('serves metrics on METRICS_PORT, logs JSON without secrets, and stops on SIGTERM', async () => {
    const databaseUrl = new URL(inject('databaseUrl'));
    // The local server trusts its clients; a password it ignores shows that none is printed.
    const secret = databaseUrl.password || 'spawned-db-secret-4711';
    if (!databaseUrl.password) databaseUrl.password = secret;
    const [port, metricsPort] = [await closedPort(), await closedPort()];
    child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@boxoffice/source', 'src/main.ts'],
      {
        cwd: path.resolve(import.meta.dirname, '..'),
        env: {
          PATH: process.env.PATH ?? '',
          NODE_ENV: 'production',
          DATABASE_URL: databaseUrl.toString(),
          SECRETS_ENCRYPTION_KEYS: `metrics:${randomBytes(32).toString('hex')}`,
          PORT: String(port),
          HOST: '127.0.0.1',
          METRICS_PORT: String(metricsPort),
          METRICS_HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
          // The suites share one database: webhooks are delivered only where a suite asks.
          WEBHOOK_WORKER: 'off',
        },
        stdio: 'pipe',
      },
    );
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child!.on('exit', resolve));

    const api = { baseUrl: `http://127.0.0.1:${port}` };
    await vi.waitFor(
      async () => {
        expect((await call(api, 'GET', '/healthz')).status).toBe(200);
      },
      { timeout: 20_000, interval: 100 },
    );
    // Without METRICS_TOKEN the main port has no /metrics.
    expect((await call(api, 'GET', '/metrics')).status).toBe(404);
    const metricsTarget = { baseUrl: `http://127.0.0.1:${metricsPort}` };
    await settled(async () => {
      const scraped = await call(metricsTarget, 'GET', '/metrics');
      expect(scraped.status).toBe(200);
      const samples = parse(scraped.body as string);
      expect(
        valueOf(samples, 'http_requests_total', { route: '/healthz', status: '200' }),
      ).toBeGreaterThanOrEqual(1);
      expect(valueOf(samples, 'http_requests_total', { route: 'unmatched' })).toBe(1);
      expect(valueOf(samples, 'boxoffice_db_pool_connections')).toBeGreaterThanOrEqual(0);
    });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    child = undefined;
    const lines = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'Boxoffice API listening', port, metricsPort }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ route: '/healthz', status: 200, method: 'GET' }),
    );
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped' });
    expect(output).not.toContain(`:${secret}@`);
    if (secret.length > 8) expect(output).not.toContain(secret);
    expect(lines).toContainEqual(
      expect.objectContaining({ database: expect.stringContaining(':redacted@') as unknown }),
    );
  });
});
