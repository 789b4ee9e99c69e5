import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { startEmbeddedDatabase } from './bootstrap';
import { createApp } from './app';
import { createAttemptLimits } from './http/attempt-limit';
import { STORE_TIMEOUT_MS } from './http/limiter-store';
import { answerProtocolErrors } from './http/client-error';
import { createServer } from './http/node-http';
import { createHttpServer } from './http/server';
import { defaultDashboardDir } from './db/paths';
import {
  configSecrets,
  loadConfig,
  redactSecrets,
  redactUrl,
  webhookUrlPolicy,
  type Config,
} from './config';
import { createOrm, migrate } from './db/orm';
import { entities } from './modules/entities';
import { closeLogger, createLogger } from './http/logger';
import { createMetrics, metricsListener } from './http/metrics';
import { createRateLimits } from './http/rate-limit';
import { purgeChanges } from './modules/changes/change.service';
import { ExportJobs, STALLED_AFTER_MS } from './modules/exports/export-jobs';
import { sweepExports } from './modules/exports/export.service';
import { purgeExpiredIdempotencyKeys } from './modules/idempotency/idempotency.service';
import { RequestLogWriter } from './modules/request-logs/request-log-writer';
import { insertRequestLogs } from './modules/request-logs/request-log.repository';
import { maintainRequestLogPartitions } from './modules/request-logs/request-log.service';
import { DEFAULT_RETRY } from './modules/webhooks/webhook-engine';
import { WebhookThread } from './modules/webhooks/webhook-thread';
import { purgeWebhookMessages } from './modules/webhooks/webhook-message.service';
import { resealStoredSecrets } from './modules/webhooks/webhook-secret.service';

/** What the entry (main.ts) knows of the built files. */
export interface StartOptions {
  /** The OpenAPI document written at build; `/openapi.json` generates it where the file is absent. */
  openApiFile?: string;
}

async function main(config: Config, options: StartOptions): Promise<void> {
  const logger = createLogger(config);
  // The embedded database (a development convenience) is loaded only when used.
  const embedded = config.DATABASE_URL
    ? null
    : await (await import('./bootstrap')).startEmbeddedDatabase(config, logger);
  try {
    await serve(config, logger, embedded, options);
  } catch (error) {
    // Nothing is served: the embedded database this start began stops with it.
    await embedded?.stop().catch(() => undefined);
    throw error;
  }
}

type EmbeddedDatabase = Awaited<ReturnType<typeof startEmbeddedDatabase>>;

async function serve(
  config: Config,
  logger: Logger,
  embedded: EmbeddedDatabase | null,
  options: StartOptions,
): Promise<void> {
  const databaseUrl = config.DATABASE_URL ?? embedded?.url;
  if (databaseUrl === undefined) {
    throw new Error('serve: neither DATABASE_URL nor an embedded database');
  }

  const orm = await createOrm({
    entities,
    databaseUrl,
    poolMax: config.DB_POOL_MAX,
    connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: config.DB_QUERY_TIMEOUT_MS,
    secretKeys: config.SECRETS_ENCRYPTION_KEYS,
  });
  if (embedded) {
    await migrate(orm);
    await embedded.prepareDemo(orm);
  }
  // The Redis client is loaded only when a Redis is configured.
  const redis = config.REDIS_URL
    ? new (await import('ioredis')).Redis(config.REDIS_URL, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 2000,
        // A Redis that accepts connections but does not answer: fail each command, don't queue it.
        commandTimeout: STORE_TIMEOUT_MS,
      })
    : undefined;
  redis?.on('error', (error) => logger.warn({ err: error }, 'redis error'));
  const rateLimits = createRateLimits({
    readsPerMinute: config.RATE_LIMIT_READS_PER_MINUTE,
    writesPerMinute: config.RATE_LIMIT_WRITES_PER_MINUTE,
    redis,
    keyPrefix: `${config.REDIS_KEY_PREFIX}:rl`,
  });

  const metrics = createMetrics({ orm });
  // The request log of this process's API requests (none for a worker alone, which serves none).
  const requestLog =
    config.REQUEST_LOG === 'on' && config.WEBHOOK_WORKER !== 'only'
      ? new RequestLogWriter({
          write: (rows) => insertRequestLogs(orm.em, rows),
          maxBuffered: config.REQUEST_LOG_BUFFER_RECORDS,
          onOutcome: metrics.requestLog,
          onError: logWriteFailure(logger),
        }).start()
      : undefined;
  const webhookUrls = webhookUrlPolicy(config);
  // Exports: every process adds their jobs to the queue and serves their files; each makes
  // EXPORT_CONCURRENCY of them at once (the queue starts below).
  const exportJobs = new ExportJobs({
    databaseUrl,
    logger,
    em: orm.em,
    retentionMs: config.EXPORT_RETENTION_HOURS * 3600_000,
    concurrency: config.EXPORT_CONCURRENCY,
  });
  const dashboardDir = config.DASHBOARD_DIR ?? defaultDashboardDir();
  const app = createApp({
    orm,
    rateLimits,
    logger,
    metrics,
    metricsToken: config.METRICS_TOKEN,
    trustProxy: config.TRUST_PROXY,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    dashboardDir,
    openApiFile: options.openApiFile,
    secureCookies: (config.COOKIE_SECURE ?? String(config.NODE_ENV === 'production')) === 'true',
    hsts: config.NODE_ENV === 'production',
    attemptLimits: createAttemptLimits({
      redis,
      keyPrefix: config.REDIS_KEY_PREFIX,
      limits: {
        apiAuthFailures: {
          points: config.AUTH_FAILURES_PER_MINUTE,
          durationSeconds: 60,
        },
      },
    }),
    requestDeadlineMs: config.DB_CONNECT_TIMEOUT_MS + config.DB_QUERY_TIMEOUT_MS,
    isStopping: () => http.draining,
    webhookUrls,
    requestLog,
    exportQueue: exportJobs,
  });
  // Express's reading of TRUST_PROXY: the peers whose connections carry other clients' requests.
  const trustsProxy = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  const http = createHttpServer(app, {
    maxConnections: config.MAX_CONNECTIONS,
    maxConnectionsPerAddress:
      config.MAX_CONNECTIONS_PER_ADDRESS ?? Math.ceil(config.MAX_CONNECTIONS / 10),
    isTrustedProxy: (address) => trustsProxy(address, 0),
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
  });
  answerProtocolErrors(http.server);
  // A worker-only process (WEBHOOK_WORKER=only) serves no API: only its metrics port, if any.
  const serveApi = config.WEBHOOK_WORKER !== 'only';
  const server = serveApi
    ? await listen(http.server, config.PORT, config.HOST, 'PORT').catch(async (error: unknown) => {
        await orm.close();
        redis?.disconnect();
        throw error;
      })
    : undefined;
  const metricsServer =
    config.METRICS_PORT === undefined
      ? undefined
      : await listen(
          createServer(metricsListener(metrics, config.METRICS_TOKEN)),
          config.METRICS_PORT,
          config.METRICS_HOST,
          'METRICS_PORT',
        ).catch(async (error: unknown) => {
          if (server) await close(server);
          await orm.close();
          redis?.disconnect();
          throw error;
        });
  logger.info(
    {
      port: server ? portOf(server) : undefined,
      webhookWorker: config.WEBHOOK_WORKER,
      metricsPort: metricsServer ? portOf(metricsServer) : undefined,
      metricsOnMainPort: Boolean(config.METRICS_TOKEN),
      rateLimitStore: rateLimits.store,
      database: redactUrl(databaseUrl),
    },
    serveApi ? 'Boxoffice API listening' : 'Boxoffice webhook worker running',
  );
  if (embedded && serveApi) embedded.announce(config.PORT);

  if (!config.SECRETS_ENCRYPTION_KEYS && !embedded) {
    logger.warn('SECRETS_ENCRYPTION_KEYS is not set: secrets are sealed with the development key');
  }
  // Secrets written before encryption (or under the development key, once keys are configured)
  // are sealed under the current key, once the server is up; it reads them meanwhile.
  const sealing = resealStoredSecrets(orm.em.fork(), 'legacy').then(
    (report) => {
      if (report.endpoints.resealed + report.idempotency_answers.resealed > 0) {
        logger.info(report, 'stored secrets sealed under the current key');
      }
      if (report.endpoints.unreadable.length + report.idempotency_answers.unreadable > 0) {
        logger.warn(
          report,
          'stored secrets sealed under keys SECRETS_ENCRYPTION_KEYS does not list',
        );
      }
    },
    (error: unknown) => logger.warn({ err: error }, 'stored secrets not sealed; at the next start'),
  );

  // Webhook delivery: in this process unless WEBHOOK_WORKER=off, in a thread of its own, so it
  // never holds up the API's event loop.
  const webhooks =
    config.WEBHOOK_WORKER === 'off'
      ? undefined
      : new WebhookThread({
          databaseUrl,
          logger,
          ...webhookUrls,
          timeoutMs: config.WEBHOOK_TIMEOUT_MS,
          secretKeys: config.SECRETS_ENCRYPTION_KEYS,
          ...DEFAULT_RETRY,
          retryDelaySeconds: config.WEBHOOK_RETRY_DELAY_SECONDS,
          disableAfterHours: 72,
          pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
          leaseSeconds: config.WEBHOOK_LEASE_SECONDS,
          onAttempt: metrics.webhookAttempt,
        });
  // Every transaction of this server that commits wakes the fan-out: a change is on its way to
  // the endpoints at once, and an idle server asks the database for others' changes every 2 s
  // rather than four times a second. A worker alone (WEBHOOK_WORKER=only) polls.
  if (webhooks && serveApi) webhooks.followCommits(orm.em);
  // Started a second after the server listens, or by the first export asked for before then: a
  // new replica answers its first requests before it loads pg-boss and starts the queue.
  const startExports = () =>
    exportJobs
      .start()
      .catch((error: unknown) => logger.error({ err: error }, 'export queue failed to start'));
  const exportsTimer = setTimeout(() => void startExports(), 1000);
  exportsTimer.unref();
  const webhooksStarted = webhooks
    ?.start()
    .catch((error: unknown) => logger.error({ err: error }, 'webhook worker failed to start'));

  // Housekeeping every ten minutes: idempotency records past their 24 hours, change records and
  // webhook messages past their retention. A failure (the database away) is retried at the next
  // round.
  const purge = setInterval(() => {
    purgeExpiredIdempotencyKeys(orm.em.fork()).catch(() => undefined);
    purgeChanges(orm.em.fork()).catch(() => undefined);
    purgeWebhookMessages(orm.em.fork()).catch(() => undefined);
    sweepExports(orm.em, { stalledAfterMs: STALLED_AFTER_MS }).catch(() => undefined);
  }, 10 * 60_000);
  purge.unref();

  // The request log's partitions: the next days' made, those past the retention dropped. At start
  // and every hour, from every replica (one does it, the others skip); a failure is retried at
  // the next round, and meanwhile a day without its partition goes to the default one.
  const maintainLogs = () =>
    maintainRequestLogPartitions(orm.em, {
      retentionDays: config.REQUEST_LOG_RETENTION_DAYS,
    }).catch((error: unknown) =>
      logger.warn({ err: error }, 'request log partitions not maintained'),
    );
  const logMaintenance = requestLog ? setInterval(maintainLogs, 60 * 60_000) : undefined;
  logMaintenance?.unref();
  if (requestLog) void maintainLogs();

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // A clean stop says so in one line, at its end.
    logger.debug({ signal }, 'shutting down: finishing in-flight requests');
    clearInterval(purge);
    clearInterval(logMaintenance);
    clearTimeout(exportsTimer);
    const force = setTimeout(() => {
      logger.error('grace period over; exiting with requests still open');
      process.exit(1);
    }, config.SHUTDOWN_GRACE_MS);
    force.unref();
    // Keep-alive connections close after their next answer, so load balancers reconnect elsewhere.
    // Deliveries in flight finish too; a message cut off is delivered again later (at least once).
    await Promise.all([
      serveApi && http.drain(config.SHUTDOWN_GRACE_MS),
      metricsServer && close(metricsServer),
      webhooksStarted?.then(() => webhooks?.stop(config.SHUTDOWN_GRACE_MS)).catch(() => undefined),
      exportJobs.stop(config.SHUTDOWN_GRACE_MS).catch(() => undefined),
    ]);
    await sealing;
    // The records of the requests just answered, written before the pool closes.
    await requestLog?.stop(Math.max(1000, config.SHUTDOWN_GRACE_MS / 2));
    await orm.close();
    redis?.disconnect();
    await embedded?.stop();
    logger.info('stopped');
    await closeLogger(logger);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGHUP', () => void shutdown('SIGHUP'));
}

/**
 * Logs why request log records were dropped, at most once a minute (a database that is away fails
 * every batch).
 */
function logWriteFailure(logger: Logger): (error: unknown) => void {
  let last = 0;
  return (error) => {
    if (Date.now() - last < 60_000) return;
    last = Date.now();
    logger.warn({ err: error }, 'request log records dropped: their batch could not be written');
  };
}

/** Listens, or rejects with what to do when the port is taken or forbidden (`variable` sets it). */
function listen(server: Server, port: number, host: string, variable: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(
          new Error(
            `Port ${port} is already in use, by another program or another Boxoffice server. ` +
              `Stop it, or choose another port: ${variable}=${port + 1} pnpm start`,
          ),
        );
      } else if (error.code === 'EACCES') {
        reject(
          new Error(
            `Port ${port} needs privileges this process lacks: choose a port above 1023 with ` +
              `${variable}.`,
          ),
        );
      } else reject(error);
    };
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve(server);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

const portOf = (server: Server): number | undefined => {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : undefined;
};

/** Startup failures print one message (secrets removed) and exit 1, before any request is served. */
function fail(error: unknown, secrets: readonly string[] = []): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${redactSecrets(message, secrets)}\n`);
  process.exit(1);
}

/** Reads the configuration from the environment and runs the server until a signal stops it. */
export function start(options: StartOptions = {}): void {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    fail(error);
  }
  main(config, options).catch((error: unknown) => fail(error, configSecrets(config)));
}
