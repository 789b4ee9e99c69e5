import { z } from 'zod';

const integer = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

export const ConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: integer(3000).pipe(z.number().max(65535)),
  /** PostgreSQL connection string. Without it the server starts an embedded PostgreSQL. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string')
    .optional(),
  /** Where the embedded PostgreSQL keeps its data (only without DATABASE_URL). */
  DATA_DIR: z.string().min(1).optional(),
  DB_POOL_MAX: integer(10, 1),
  /** How long a request waits for a database connection before answering 503. */
  DB_CONNECT_TIMEOUT_MS: integer(3000, 100),
  /** Redis connection string: the rate-limit store shared by every instance. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// connection string')
    .optional(),
  RATE_LIMIT_READS_PER_MINUTE: integer(60, 1),
  RATE_LIMIT_WRITES_PER_MINUTE: integer(10, 1),
  BODY_LIMIT_BYTES: integer(100 * 1024, 1024),
  SHUTDOWN_GRACE_MS: integer(10_000, 0),
  /** The built dashboard to serve at /dashboard; defaults to apps/dashboard/dist in a checkout. */
  DASHBOARD_DIR: z.string().min(1).optional(),
  /** Session cookies marked `Secure`; defaults to true when NODE_ENV is production. */
  COOKIE_SECURE: z.enum(['true', 'false']).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment once; a bad value stops the process with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = ConfigSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return result.data;
}
