import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import {
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type LabelValues,
} from 'prom-client';
import type { CheckinDirection, RateLimitClass } from '@boxoffice/contract';
import type { Pool } from 'pg';
import { AppError } from '../core/errors';
import type { Orm } from '../db/orm';
import { poolOf } from '../db/driver';
import type { RecordOutcome } from '../modules/request-logs/request-log-writer';
import { oldestUndeliveredAgeSeconds } from '../modules/webhooks/webhook-message.service';

/** What became of a door scan: recorded, or refused with the reason (the error code). */
export type ScanOutcome =
  | { direction: CheckinDirection; admitted: true }
  | { direction: CheckinDirection; admitted: false; reason: string };

/** The request metrics' label values per method; anything else is one `OTHER`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface Metrics {
  /** This app's own registry (several apps in one process do not share counters). */
  readonly registry: Registry;
  /** One answered request; `route` is a pattern or `UNMATCHED_ROUTE`. */
  readonly observeRequest: (method: string, route: string, status: number, seconds: number) => void;
  /** A request refused by the per-key rate limit. */
  readonly rateLimited: (kind: RateLimitClass) => void;
  /** A door scan, admitted or refused. */
  readonly scanned: (outcome: ScanOutcome) => void;
  /** Webhook delivery attempts (`count`, by default one): a 2xx in time, or not. */
  readonly webhookAttempt: (outcome: 'succeeded' | 'failed', count?: number) => void;
  /** Request log records written or dropped (`count` of them). */
  readonly requestLog: (outcome: RecordOutcome, count: number) => void;
  /** An API request recorded in no organisation's log: it failed authentication. */
  readonly requestLogUnattributed: () => void;
}

export interface MetricsOptions {
  /** The ORM whose connection pool is reported. */
  orm?: Pick<Orm, 'em'>;
  /** Node.js process metrics (CPU, memory, event loop lag, GC, handles); on by default. */
  processMetrics?: boolean;
}

/**
 * The Prometheus metrics of one app: requests by method, route pattern and status (count and
 * latency), rate-limit refusals, check-ins, the database pool, and the process.
 */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  /**
   * A counter labelled by the keys of `labels`: every combination of the values they list starts
   * at 0, so that a rate() exists before the first event (none does while a label lists none).
   */
  const counter = <L extends string>(
    name: string,
    help: string,
    labels: Record<L, readonly string[]>,
  ) => {
    const labelNames = Object.keys(labels) as L[];
    const created = new Counter({ name, help, labelNames, registers });
    const zeros = labelNames.reduce<LabelValues<L>[]>(
      (combinations, label) =>
        combinations.flatMap((partial) =>
          labels[label].map((value) => ({ ...partial, [label]: value })),
        ),
      [{}],
    );
    for (const values of zeros) created.inc(values, 0);
    return created;
  };

  const requests = counter(
    'http_requests_total',
    'HTTP requests answered, by method, route pattern and status',
    { method: [], route: [], status: [] },
  );
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request arriving to its response being sent, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const rateLimited = counter(
    'boxoffice_rate_limit_rejections_total',
    'Requests refused with 429 by the per-key rate limit, by class (read or write)',
    { class: ['read', 'write'] },
  );
  const admitted = counter(
    'boxoffice_checkins_admitted_total',
    'Door scans recorded, by direction (entry admits, exit lets out)',
    { direction: ['entry', 'exit'] },
  );
  const rejected = counter(
    'boxoffice_checkins_rejected_total',
    'Door scans refused, by direction and reason (the error code, e.g. already_checked_in)',
    { direction: [], reason: [] },
  );
  const webhookAttempts = counter(
    'boxoffice_webhook_attempts_total',
    'Webhook delivery attempts made by this process, by outcome (succeeded: a 2xx in time)',
    { outcome: ['succeeded', 'failed'] },
  );
  const requestLogRecords = counter(
    'boxoffice_request_log_records_total',
    'Request log records by outcome: written, dropped_buffer_full (the buffer was full), dropped_write_failed (their batch could not be written)',
    { outcome: ['written', 'dropped_buffer_full', 'dropped_write_failed'] },
  );
  const unattributed = counter(
    'boxoffice_request_log_unattributed_total',
    'API requests recorded in no organisation’s request log: they failed authentication',
    {},
  );

  if (options.orm) {
    registerPoolGauges(options.orm, registers);
    registerWebhookGauge(options.orm, registers);
  }
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });

  return {
    registry,
    observeRequest(method, route, status, seconds) {
      const labels = { method: METHODS.has(method) ? method : 'OTHER', route, status };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
    rateLimited(kind) {
      rateLimited.inc({ class: kind });
    },
    webhookAttempt(outcome, count = 1) {
      webhookAttempts.inc({ outcome }, count);
    },
    requestLog(outcome, count) {
      requestLogRecords.inc({ outcome }, count);
    },
    requestLogUnattributed() {
      unattributed.inc();
    },
    scanned(outcome) {
      if (outcome.admitted) admitted.inc({ direction: outcome.direction });
      else rejected.inc({ direction: outcome.direction, reason: outcome.reason });
    },
  };
}

/** A gauge read when Prometheus scrapes; without a value (`undefined`, `null`) it has no sample. */
function scrapedGauge(
  registers: Registry[],
  name: string,
  help: string,
  read: () => Promise<number | null | undefined>,
): void {
  new Gauge({
    name,
    help,
    registers,
    async collect() {
      const value = await read();
      if (value === null || value === undefined) this.reset();
      else this.set(value);
    },
  });
}

/** The age of the oldest webhook message still to be delivered. */
function registerWebhookGauge(orm: Pick<Orm, 'em'>, registers: Registry[]): void {
  scrapedGauge(
    registers,
    'boxoffice_webhook_oldest_undelivered_seconds',
    'Age of the oldest webhook message not yet delivered (0 when none is waiting)',
    () => oldestUndeliveredAgeSeconds(orm.em.fork()).catch(() => null),
  );
}

/** Gauges of the `pg` pool behind the ORM. */
function registerPoolGauges(orm: Pick<Orm, 'em'>, registers: Registry[]): void {
  const stats = async (): Promise<Pool | null> => {
    const pool = await poolOf(orm.em).catch(() => null);
    return pool && !pool.ended ? pool : null;
  };
  const gauge = (name: string, help: string, read: (pool: Pool) => number | undefined) =>
    scrapedGauge(registers, name, help, async () => {
      const current = await stats();
      return current ? read(current) : undefined;
    });
  gauge(
    'boxoffice_db_pool_connections',
    'Open database connections (in use and idle)',
    (p) => p.totalCount,
  );
  gauge(
    'boxoffice_db_pool_idle_connections',
    'Open database connections not in use',
    (p) => p.idleCount,
  );
  gauge(
    'boxoffice_db_pool_waiting_requests',
    'Queries waiting for a free database connection',
    (p) => p.waitingCount,
  );
  gauge('boxoffice_db_pool_max_connections', 'The database pool size limit', (p) => p.options.max);
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Whether an `Authorization` header carries the token (compared in constant time). */
function hasToken(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
}

/**
 * `GET /metrics` on the main port: only with a token, which every scrape must present as
 * `Authorization: Bearer <token>`.
 */
export function metricsEndpoint(metrics: Metrics, token: string): RequestHandler {
  const expected = digest(token);
  return async (req: Request, res) => {
    if (!hasToken(req.get('authorization'), expected)) {
      throw new AppError(401, 'invalid_metrics_token', 'Invalid or missing metrics token', {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      });
    }
    const body = await metrics.registry.metrics();
    res.set('Content-Type', metrics.registry.contentType).set('Cache-Control', 'no-store');
    res.send(body);
  };
}

/**
 * The metrics port: `GET /metrics` and nothing else. Meant for a private network (where
 * Prometheus scrapes); with a token, it is required here too.
 */
export function metricsListener(metrics: Metrics, token?: string): RequestListener {
  const expected = token ? digest(token) : undefined;
  const answer = (res: ServerResponse, status: number, body: string, type = 'text/plain') => {
    res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' }).end(body);
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return answer(res, 404, 'not found: only /metrics is served here\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return answer(res, 405, 'method not allowed\n');
    }
    if (expected && !hasToken(req.headers.authorization, expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      return answer(res, 401, 'invalid or missing metrics token\n');
    }
    metrics.registry.metrics().then(
      (body) => answer(res, 200, body, metrics.registry.contentType),
      () => answer(res, 500, 'could not collect metrics\n'),
    );
  };
}
