import { z } from 'zod';

/** Digits only: `Number()` would also take ' ' (0), '0x10' or '1e3'. */
const digits = (message: string) => z.string().trim().regex(/^\d+$/, message).transform(Number);

const integer = (fallback: number, min = 0) =>
  digits('must be a whole number')
    .pipe(z.number().min(min, `must be at least ${min}`))
    .default(String(fallback));

const port = digits('must be a port number (0–65535)').pipe(
  z.number().max(65535, 'must be a port number (0–65535)'),
);

/**
 * `SECRETS_ENCRYPTION_KEYS`: `<id>:<key>` pairs separated by commas, the current key first; each
 * key 32 bytes, in hex (64 digits) or base64. Never echoes a key in its messages.
 */
const secretKeys = z
  .string()
  .trim()
  .transform((text, ctx) => {
    const keys: { id: string; key: Buffer }[] = [];
    for (const [index, entry] of text.split(',').entries()) {
      const [id = '', material = ''] = entry.trim().split(/:(.*)/s);
      const place = `key ${index + 1}`;
      let key: Buffer | undefined;
      if (/^[0-9a-fA-F]{64}$/.test(material)) key = Buffer.from(material, 'hex');
      else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(material)) key = Buffer.from(material, 'base64');
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(id) || id === 'development') {
        ctx.addIssue({
          code: 'custom',
          message: `${place} must start with an id (1 to 32 letters, digits, _ or -; not "development") and a colon`,
        });
      } else if (key?.length !== 32) {
        ctx.addIssue({
          code: 'custom',
          message: `key ${id} must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)`,
        });
      } else if (keys.some((known) => known.id === id)) {
        ctx.addIssue({ code: 'custom', message: `key id ${id} is listed twice` });
      } else {
        keys.push({ id, key });
      }
    }
    return keys;
  });

export const ConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: port.default('3000'),
  /**
   * PostgreSQL connection string. Without it the server starts an embedded PostgreSQL, a
   * development convenience: required when NODE_ENV is production.
   */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string')
    .optional(),
  /** Where the embedded PostgreSQL keeps its data (only without DATABASE_URL). */
  DATA_DIR: z.string().min(1).optional(),
  DB_POOL_MAX: integer(10, 1),
  /** How long a request waits for a database connection before answering 503. */
  DB_CONNECT_TIMEOUT_MS: integer(3000, 100),
  /**
   * The longest one SQL statement may take, measured by the server (a stopped or unreachable
   * PostgreSQL never answers, so the server-side `statement_timeout` alone is not enough).
   */
  DB_QUERY_TIMEOUT_MS: integer(5000, 100),
  /** Redis connection string: the rate-limit store shared by every instance. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// connection string')
    .optional(),
  /** The start of every key the server writes to Redis: separates deployments sharing one. */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, _ . or -')
    .default('bxo'),
  RATE_LIMIT_READS_PER_MINUTE: integer(60, 1),
  RATE_LIMIT_WRITES_PER_MINUTE: integer(10, 1),
  /**
   * Failed `/api/v1` authentications per client address a minute; past it, requests from that
   * address without a valid key get a 429 (a valid key never does). No value turns it off.
   */
  AUTH_FAILURES_PER_MINUTE: integer(30, 1),
  BODY_LIMIT_BYTES: integer(100 * 1024, 1024),
  /** Open connections per instance; past it new connections are closed at once. */
  MAX_CONNECTIONS: integer(1000, 1),
  /**
   * Open connections one client address may hold; past it its new connections are closed at once.
   * Defaults to a tenth of MAX_CONNECTIONS. Connections from the proxies TRUST_PROXY trusts are not
   * limited by it.
   */
  MAX_CONNECTIONS_PER_ADDRESS: digits('must be a whole number')
    .pipe(z.number().min(1, 'must be at least 1'))
    .optional(),
  /** A request's headers must arrive within this long, or the answer is a 408. */
  HEADERS_TIMEOUT_MS: integer(10_000, 1000),
  /** A whole request, body included, must arrive within this long, or the answer is a 408. */
  REQUEST_TIMEOUT_MS: integer(30_000, 1000),
  SHUTDOWN_GRACE_MS: integer(10_000, 0),
  /** The built dashboard to serve at /dashboard; defaults to apps/dashboard/dist in a checkout. */
  DASHBOARD_DIR: z.string().min(1).optional(),
  /** Session cookies marked `Secure`; defaults to true when NODE_ENV is production. */
  COOKIE_SECURE: z.enum(['true', 'false']).optional(),
  /**
   * Which proxies to believe about the client's address (`X-Forwarded-For`), as Express's
   * `trust proxy`: a hop count (`1` behind one load balancer), `loopback`, addresses or subnets.
   * Unset, the peer address is the client's.
   */
  TRUST_PROXY: z
    .string()
    .trim()
    .regex(/^(\d+|[\w.:/]+(\s*,\s*[\w.:/]+)*)$/, 'must be a hop count or a list of addresses')
    .transform((value): number | string => (/^\d+$/.test(value) ? Number(value) : value))
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** A second port serving only `GET /metrics` (Prometheus); none unless set. */
  METRICS_PORT: port.optional(),
  /** The interface of METRICS_PORT. */
  METRICS_HOST: z.string().min(1).default('0.0.0.0'),
  /**
   * A bearer token for `/metrics`: with it, the main port serves `/metrics` too, and every
   * `/metrics` (on either port) requires `Authorization: Bearer <token>`.
   */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * Where webhooks are delivered from: `in-process` (every API process also delivers, the
   * default), `off` (this process serves the API only), `only` (this process delivers and serves
   * no API; `/metrics` on METRICS_PORT still works).
   */
  WEBHOOK_WORKER: z.enum(['in-process', 'off', 'only']).default('in-process'),
  /**
   * Webhook URLs may use plain `http:` (local development, tests). Always on with the embedded
   * PostgreSQL (`webhookUrlPolicy`).
   */
  WEBHOOK_ALLOW_HTTP: z.enum(['true', 'false']).default('false'),
  /**
   * Webhook URLs may reach loopback, private and link-local addresses (local development, tests).
   * Always on with the embedded PostgreSQL (`webhookUrlPolicy`).
   */
  WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(['true', 'false']).default('false'),
  /** A webhook delivery's answer must arrive within this long. */
  WEBHOOK_TIMEOUT_MS: integer(10_000, 100),
  /**
   * The first webhook retry's delay in seconds; retry n waits between half and all of this ×
   * 2^(n−1), at most 4 hours.
   */
  WEBHOOK_RETRY_DELAY_SECONDS: integer(10, 1),
  /** The webhook fan-out's pace while changes keep coming; how often a lone worker looks. */
  WEBHOOK_POLL_INTERVAL_MS: integer(250, 10),
  /**
   * How long a process has to send and record the webhook messages it sends at once; past it,
   * another process (or this one) sends again those it did not record.
   */
  WEBHOOK_LEASE_SECONDS: integer(60, 2),
  /**
   * The keys webhook signing secrets are encrypted with at rest, current first (`<id>:<key>`,
   * comma-separated; the others still open what they sealed). Required when NODE_ENV is
   * production; without it, a development key that protects nothing.
   */
  SECRETS_ENCRYPTION_KEYS: secretKeys.optional(),
  /**
   * The request log: every `/api/v1` request recorded for its organisation's Logs and Usage pages
   * (`on`, the default), or nothing recorded (`off`).
   */
  REQUEST_LOG: z.enum(['on', 'off']).default('on'),
  /** How many days request log records are kept (whole days: a day's records go together). */
  REQUEST_LOG_RETENTION_DAYS: integer(14, 1),
  /**
   * Request log records one process holds in memory while they wait to be written; past it, new
   * ones are dropped (and counted in `boxoffice_request_log_records_total`).
   */
  REQUEST_LOG_BUFFER_RECORDS: integer(10_000, 100),
  /** How many hours an export's file is kept once made; then the file is removed (`expired`). */
  EXPORT_RETENTION_HOURS: integer(24, 1),
  /**
   * Exports this process makes at once, from the queue every replica shares; 0: it makes none
   * (it still takes requests for them, and serves their files).
   */
  EXPORT_CONCURRENCY: integer(1, 0),
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Which webhook URLs are accepted: `https:` to public addresses, and what WEBHOOK_ALLOW_HTTP and
 * WEBHOOK_ALLOW_PRIVATE_URLS add. Without DATABASE_URL (the embedded PostgreSQL of `pnpm start`,
 * never production) plain `http:` and loopback receivers too, so a receiver on this machine can
 * be tried.
 */
export function webhookUrlPolicy(
  config: Pick<Config, 'DATABASE_URL' | 'WEBHOOK_ALLOW_HTTP' | 'WEBHOOK_ALLOW_PRIVATE_URLS'>,
): { allowHttp: boolean; allowPrivate: boolean } {
  const local = config.DATABASE_URL === undefined;
  return {
    allowHttp: local || config.WEBHOOK_ALLOW_HTTP === 'true',
    allowPrivate: local || config.WEBHOOK_ALLOW_PRIVATE_URLS === 'true',
  };
}

/** Rules between variables; each names the variable to change. */
function crossChecks(config: Config, issue: (name: keyof Config, message: string) => void): void {
  if (config.NODE_ENV === 'production' && !config.DATABASE_URL) {
    issue(
      'DATABASE_URL',
      'is required when NODE_ENV is production (the embedded PostgreSQL is for development only)',
    );
  }
  if (config.NODE_ENV === 'production' && !config.SECRETS_ENCRYPTION_KEYS) {
    issue(
      'SECRETS_ENCRYPTION_KEYS',
      'is required when NODE_ENV is production (the key that encrypts webhook signing secrets at rest)',
    );
  }
  if (config.HEADERS_TIMEOUT_MS > config.REQUEST_TIMEOUT_MS) {
    issue('HEADERS_TIMEOUT_MS', 'must not be longer than REQUEST_TIMEOUT_MS');
  }
  if (config.METRICS_PORT !== undefined && config.METRICS_PORT !== 0) {
    if (config.METRICS_PORT === config.PORT) issue('METRICS_PORT', 'must differ from PORT');
  }
}

const EnvironmentSchema = ConfigSchema.superRefine((config, ctx) => {
  crossChecks(config, (name, message) => ctx.addIssue({ code: 'custom', path: [name], message }));
});

/**
 * Parses the environment once; a bad value stops the process with a message naming the variable
 * (never echoing a value, which may be a secret). An empty variable counts as unset, as
 * `VAR=${VAR:-}` in a compose file produces one.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present: Record<string, string> = {};
  for (const name of Object.keys(ConfigSchema.shape)) {
    const value = env[name];
    if (value !== undefined && value !== '') present[name] = value;
  }
  const result = EnvironmentSchema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const name = issue.path.join('.');
      const message =
        issue.code === 'invalid_type' && issue.received === 'undefined'
          ? 'is required'
          : issue.message;
      return `${name}: ${message}`;
    });
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return result.data;
}

/** The secret parts of a configuration: connection-string passwords and the metrics token. */
export function configSecrets(
  config: Partial<Pick<Config, 'DATABASE_URL' | 'REDIS_URL' | 'METRICS_TOKEN'>>,
): string[] {
  const secrets = new Set<string>();
  for (const url of [config.DATABASE_URL, config.REDIS_URL]) {
    const password = url ? passwordOf(url) : undefined;
    if (password) {
      secrets.add(password);
      // A connection string carries the password percent-encoded; errors may show either form.
      secrets.add(safeDecode(password));
    }
  }
  if (config.METRICS_TOKEN) secrets.add(config.METRICS_TOKEN);
  return [...secrets].filter((secret) => secret.length > 0);
}

function passwordOf(url: string): string | undefined {
  try {
    return new URL(url).password || undefined;
  } catch {
    // Not parseable as a URL: take what sits between `user:` and `@`.
    return /^[a-z]+:\/\/[^:/@]*:([^@]*)@/i.exec(url)?.[1];
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `text` with every secret replaced, for messages that may quote a connection string. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.replaceAll(secret, '[redacted]');
  return out;
}

/** A connection string safe to print: the password replaced. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = 'redacted';
    return parsed.toString();
  } catch {
    return url.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1redacted@');
  }
}
