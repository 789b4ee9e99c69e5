import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  ConfigSchema,
  configSecrets,
  loadConfig,
  redactSecrets,
  redactUrl,
} from '../src/config';

const apiDir = path.resolve(import.meta.dirname, '..');

/** The message of the error `loadConfig(env)` throws. */
function failure(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('has a default for everything optional in development', () => {
    expect(loadConfig({})).toEqual({
      NODE_ENV: 'development',
      HOST: '0.0.0.0',
      PORT: 3000,
      DB_POOL_MAX: 10,
      DB_CONNECT_TIMEOUT_MS: 3000,
      DB_QUERY_TIMEOUT_MS: 5000,
      REDIS_KEY_PREFIX: 'bxo',
      RATE_LIMIT_READS_PER_MINUTE: 60,
      RATE_LIMIT_WRITES_PER_MINUTE: 10,
      AUTH_FAILURES_PER_MINUTE: 30,
      BODY_LIMIT_BYTES: 102400,
      MAX_CONNECTIONS: 1000,
      HEADERS_TIMEOUT_MS: 10000,
      REQUEST_TIMEOUT_MS: 30000,
      SHUTDOWN_GRACE_MS: 10000,
      LOG_LEVEL: 'info',
      METRICS_HOST: '0.0.0.0',
      WEBHOOK_WORKER: 'in-process',
      WEBHOOK_ALLOW_HTTP: 'false',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'false',
      WEBHOOK_TIMEOUT_MS: 10000,
      WEBHOOK_RETRY_DELAY_SECONDS: 10,
      WEBHOOK_POLL_INTERVAL_MS: 250,
      WEBHOOK_LEASE_SECONDS: 60,
      REQUEST_LOG: 'on',
      REQUEST_LOG_RETENTION_DAYS: 14,
      REQUEST_LOG_BUFFER_RECORDS: 10000,
      EXPORT_RETENTION_HOURS: 24,
      EXPORT_CONCURRENCY: 1,
    });
  });

  it('reads every variable it knows and ignores the rest of the environment', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      PORT: '8080',
      DATABASE_URL: 'postgres://app:pw@db:5432/boxoffice',
      REDIS_URL: 'redis://cache:6379',
      REDIS_KEY_PREFIX: 'boxoffice-staging',
      DB_POOL_MAX: '25',
      METRICS_PORT: '9464',
      METRICS_HOST: '10.0.0.5',
      METRICS_TOKEN: 'a-token-of-sixteen+',
      LOG_LEVEL: 'warn',
      SECRETS_ENCRYPTION_KEYS: `k2:${'ab'.repeat(32)}, k1:${Buffer.alloc(32, 7).toString('base64')}`,
      AUTH_FAILURES_PER_MINUTE: '500',
      REQUEST_LOG: 'off',
      REQUEST_LOG_RETENTION_DAYS: '30',
      EXPORT_RETENTION_HOURS: '72',
      EXPORT_CONCURRENCY: '0',
      HOME: '/root',
    });
    expect(config).toMatchObject({
      NODE_ENV: 'production',
      PORT: 8080,
      DATABASE_URL: 'postgres://app:pw@db:5432/boxoffice',
      REDIS_URL: 'redis://cache:6379',
      REDIS_KEY_PREFIX: 'boxoffice-staging',
      DB_POOL_MAX: 25,
      METRICS_PORT: 9464,
      METRICS_HOST: '10.0.0.5',
      METRICS_TOKEN: 'a-token-of-sixteen+',
      LOG_LEVEL: 'warn',
      SECRETS_ENCRYPTION_KEYS: [
        { id: 'k2', key: Buffer.alloc(32, 0xab) },
        { id: 'k1', key: Buffer.alloc(32, 7) },
      ],
      AUTH_FAILURES_PER_MINUTE: 500,
      REQUEST_LOG: 'off',
      REQUEST_LOG_RETENTION_DAYS: 30,
      EXPORT_RETENTION_HOURS: 72,
      EXPORT_CONCURRENCY: 0,
    });
    expect(config).not.toHaveProperty('HOME');
  });

  it('treats an empty variable as unset', () => {
    const config = loadConfig({ PORT: '', DATABASE_URL: '', METRICS_PORT: '' });
    expect(config.PORT).toBe(3000);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.METRICS_PORT).toBeUndefined();
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT: must be a port number'],
    [{ PORT: ' ' }, 'PORT: must be a port number'],
    [{ PORT: '1e3' }, 'PORT: must be a port number'],
    [{ PORT: '65536' }, 'PORT: must be a port number'],
    [{ METRICS_PORT: '-1' }, 'METRICS_PORT: must be a port number'],
    [{ DB_POOL_MAX: '0' }, 'DB_POOL_MAX: must be at least 1'],
    [{ DB_POOL_MAX: '2.5' }, 'DB_POOL_MAX: must be a whole number'],
    [{ BODY_LIMIT_BYTES: '10' }, 'BODY_LIMIT_BYTES: must be at least 1024'],
    [{ AUTH_FAILURES_PER_MINUTE: '0' }, 'AUTH_FAILURES_PER_MINUTE: must be at least 1'],
    [{ AUTH_FAILURES_PER_MINUTE: 'off' }, 'AUTH_FAILURES_PER_MINUTE: must be a whole number'],
    [{ NODE_ENV: 'prod' }, 'NODE_ENV: Invalid enum value'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL: Invalid enum value'],
    [{ COOKIE_SECURE: 'yes' }, 'COOKIE_SECURE: Invalid enum value'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL: must be a redis:// connection string'],
    [{ REDIS_KEY_PREFIX: 'a b' }, 'REDIS_KEY_PREFIX: must be 1 to 64 letters, digits, _ . or -'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN: must be at least 16 characters'],
    [{ PORT: '9100', METRICS_PORT: '9100' }, 'METRICS_PORT: must differ from PORT'],
    [{ EXPORT_RETENTION_HOURS: '0' }, 'EXPORT_RETENTION_HOURS: must be at least 1'],
    [{ EXPORT_CONCURRENCY: 'two' }, 'EXPORT_CONCURRENCY: must be a whole number'],
  ])('refuses %o, naming the variable', (env, message) => {
    const text = failure(env);
    expect(text).toMatch(/^Invalid configuration:\n {2}/);
    expect(text).toContain(message);
  });

  it('refuses a header timeout longer than the request timeout', () => {
    expect(failure({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' })).toContain(
      'HEADERS_TIMEOUT_MS: must not be longer than REQUEST_TIMEOUT_MS',
    );
  });

  it('refuses a request log setting other than on or off, and a retention under a day', () => {
    const message = failure({ REQUEST_LOG: 'yes', REQUEST_LOG_RETENTION_DAYS: '0' });
    expect(message).toContain('REQUEST_LOG:');
    expect(message).toContain('REQUEST_LOG_RETENTION_DAYS: must be at least 1');
  });

  it('names every bad variable at once', () => {
    const text = failure({ PORT: 'abc', DB_POOL_MAX: '0', LOG_LEVEL: 'loud' });
    expect(text).toContain('PORT:');
    expect(text).toContain('DB_POOL_MAX:');
    expect(text).toContain('LOG_LEVEL:');
  });

  it('requires DATABASE_URL in production: the embedded PostgreSQL is for development', () => {
    expect(failure({ NODE_ENV: 'production' })).toContain(
      'DATABASE_URL: is required when NODE_ENV is production',
    );
    expect(failure({ NODE_ENV: 'production', DATABASE_URL: '' })).toContain('DATABASE_URL:');
    expect(loadConfig({ NODE_ENV: 'test' }).DATABASE_URL).toBeUndefined();
  });

  it('requires SECRETS_ENCRYPTION_KEYS in production, in one sentence naming it', () => {
    const text = failure({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/boxoffice' });
    expect(text).toBe(
      'Invalid configuration:\n  SECRETS_ENCRYPTION_KEYS: is required when NODE_ENV is production (the key that encrypts webhook signing secrets at rest)',
    );
    expect(loadConfig({ NODE_ENV: 'test' }).SECRETS_ENCRYPTION_KEYS).toBeUndefined();
  });

  it('reads SECRETS_ENCRYPTION_KEYS as ids and 32-byte keys, in hex, base64 or base64url', () => {
    const key = Buffer.alloc(32, 0xfe);
    const config = loadConfig({
      SECRETS_ENCRYPTION_KEYS: `a:${key.toString('base64url')},b_2:${key.toString('base64')},c-3:${key.toString('hex')}`,
    });
    expect(config.SECRETS_ENCRYPTION_KEYS).toEqual([
      { id: 'a', key },
      { id: 'b_2', key },
      { id: 'c-3', key },
    ]);
  });

  it.each([
    ['no id', Buffer.alloc(32).toString('hex'), 'key 1 must start with an id'],
    ['the reserved id', `development:${'00'.repeat(32)}`, 'key 1 must start with an id'],
    ['a short key', `k1:${'00'.repeat(31)}`, 'key k1 must be 32 bytes'],
    ['a long key', `k1:${Buffer.alloc(33).toString('base64')}`, 'key k1 must be 32 bytes'],
    ['an id twice', `k1:${'00'.repeat(32)},k1:${'11'.repeat(32)}`, 'key id k1 is listed twice'],
    ['an empty entry', `k1:${'00'.repeat(32)},`, 'key 2 must start with an id'],
  ])('refuses SECRETS_ENCRYPTION_KEYS with %s, without echoing a key', (_, value, message) => {
    const text = failure({ SECRETS_ENCRYPTION_KEYS: value });
    expect(text).toContain(`SECRETS_ENCRYPTION_KEYS: ${message}`);
    expect(text).not.toContain('0000');
  });

  it('never repeats the value of a bad connection string (it may hold a password)', () => {
    const text = failure({ DATABASE_URL: 'mysql://app:hunter2-secret@db/boxoffice' });
    expect(text).toContain('DATABASE_URL: must be a postgres:// connection string');
    expect(text).not.toContain('hunter2');
  });

  it('keeps ConfigSchema a plain object of the variables (documented in the README)', () => {
    expect(Object.keys(ConfigSchema.shape)).toEqual(
      expect.arrayContaining(['METRICS_PORT', 'METRICS_HOST', 'METRICS_TOKEN', 'DATABASE_URL']),
    );
  });
});

describe('secrets', () => {
  const config = {
    DATABASE_URL: 'postgres://app:p%40ss-w0rd@db:5432/boxoffice',
    REDIS_URL: 'rediss://default:redis-secret@cache:6380',
    METRICS_TOKEN: 'metrics-token-0123456789',
  };

  it('are the connection-string passwords (both encodings) and the metrics token', () => {
    expect(configSecrets(config).sort()).toEqual(
      ['p%40ss-w0rd', 'p@ss-w0rd', 'redis-secret', 'metrics-token-0123456789'].sort(),
    );
    expect(configSecrets({ DATABASE_URL: 'postgres://app@db/boxoffice' })).toEqual([]);
  });

  it('are removed from text', () => {
    const text = `connect to ${config.DATABASE_URL} failed; token metrics-token-0123456789`;
    const redacted = redactSecrets(text, configSecrets(config));
    expect(redacted).not.toContain('w0rd');
    expect(redacted).not.toContain('metrics-token');
    expect(redacted).toContain('postgres://app:[redacted]@db:5432/boxoffice');
  });

  it('are removed from a URL to print', () => {
    expect(redactUrl(config.REDIS_URL)).toBe('rediss://default:redacted@cache:6380');
    expect(redactUrl('postgres://app@db/x')).toBe('postgres://app@db/x');
  });
});

/** Runs the server's entry point as `pnpm dev` does, with exactly `env` (plus PATH). */
function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@boxoffice/source', 'src/main.ts'],
      { cwd: apiDir, env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('the server process with a bad configuration', () => {
  it('exits 1 before listening, naming the variable', async () => {
    const { code, stderr } = await runMain({ PORT: 'abc', LOG_LEVEL: 'info' });
    expect(code).toBe(1);
    expect(stderr).toContain('Invalid configuration');
    expect(stderr).toContain('PORT: must be a port number');
    // One clear message, not a stack trace.
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 1 in production without DATABASE_URL, naming it', async () => {
    const { code, stderr } = await runMain({ NODE_ENV: 'production' });
    expect(code).toBe(1);
    expect(stderr).toContain('DATABASE_URL: is required when NODE_ENV is production');
  });

  it('exits 1 in production without SECRETS_ENCRYPTION_KEYS, naming it', async () => {
    const { code, stderr } = await runMain({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://127.0.0.1:1/none',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('SECRETS_ENCRYPTION_KEYS: is required when NODE_ENV is production');
  });

  it('does not print the password of a bad connection string', async () => {
    const { code, stderr } = await runMain({
      DATABASE_URL: 'mysql://app:hunter2-secret@db/boxoffice',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('DATABASE_URL');
    expect(stderr).not.toContain('hunter2');
  });
});
