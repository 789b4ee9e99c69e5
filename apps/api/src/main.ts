import type { Server } from 'node:http';
import { Redis } from 'ioredis';
import { createApp, defaultLoginAttempts } from './app';
import { defaultDashboardDir } from './db/paths';
import { loadConfig, type Config } from './config';
import { startEmbeddedDatabase } from './db/bootstrap';
import { createOrm, migrate } from './db/orm';
import { createLogger } from './http/logger';
import { createRateLimits } from './http/rate-limit';
import { purgeExpiredIdempotencyKeys } from './modules/idempotency/idempotency.service';

async function main(config: Config): Promise<void> {
  const logger = createLogger(config);
  const embedded = config.DATABASE_URL ? null : await startEmbeddedDatabase(config, logger);
  const databaseUrl = config.DATABASE_URL ?? embedded!.url;

  const orm = await createOrm({
    databaseUrl,
    poolMax: config.DB_POOL_MAX,
    connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
  });
  if (embedded) {
    await migrate(orm);
    await embedded.prepareDemo(orm);
  }

  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 2000,
      })
    : undefined;
  redis?.on('error', (error) => logger.warn({ err: error }, 'redis error'));
  const rateLimits = createRateLimits({
    readsPerMinute: config.RATE_LIMIT_READS_PER_MINUTE,
    writesPerMinute: config.RATE_LIMIT_WRITES_PER_MINUTE,
    redis,
  });

  const dashboardDir = config.DASHBOARD_DIR ?? defaultDashboardDir();
  const app = createApp({
    orm,
    rateLimits,
    logger,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    dashboardDir,
    secureCookies: (config.COOKIE_SECURE ?? String(config.NODE_ENV === 'production')) === 'true',
    loginAttempts: defaultLoginAttempts(redis),
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(config.PORT, config.HOST, () => resolve(listening));
  });
  logger.info({ port: config.PORT, rateLimitStore: rateLimits.store }, 'Boxoffice API listening');
  if (embedded) embedded.announce(config.PORT);

  const purge = setInterval(() => {
    purgeExpiredIdempotencyKeys(orm.em.fork()).catch(() => undefined);
  }, 10 * 60_000);
  purge.unref();

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    clearInterval(purge);
    const force = setTimeout(() => {
      logger.error('grace period over; exiting with requests still open');
      process.exit(1);
    }, config.SHUTDOWN_GRACE_MS);
    force.unref();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await orm.close();
    redis?.disconnect();
    await embedded?.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main(loadConfig()).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
