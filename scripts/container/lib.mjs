// Shared by the container checks (verify.mjs, rolling-deploy.mjs): podman and psql as promises,
// the image's CLI, a database of the run's own, a timed log, and a free local port.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { promisify } from 'node:util';

export const run = promisify(execFile);

/** The image and the services it runs against (BOXOFFICE_IMAGE, DATABASE_URL, REDIS_URL). */
export const image = process.env.BOXOFFICE_IMAGE ?? 'localhost/boxoffice-api:local';
export const serverUrl = new URL(
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
);
export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A log to stderr whose lines carry `label` and the time since the start; `elapsed()` says it. */
export function timedLog(label) {
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  const log = (message) => process.stderr.write(`[${label} +${elapsed()}] ${message}\n`);
  return { log, elapsed };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** podman's stdout. */
export async function podman(...args) {
  const { stdout } = await run('podman', args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/**
 * Runs SQL on the server of `url` and gives its output (unaligned, tuples only). The statement
 * goes on psql's stdin: a list of ids can outgrow what one argument may hold.
 */
export function psql(sql, url) {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'psql',
      [url.toString(), '-v', 'ON_ERROR_STOP=1', '-Atq', '-f', '-'],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => (error ? reject(error) : resolve(stdout.trim())),
    );
    child.stdin.end(sql);
  });
}

/**
 * A database and a role of this run's own, `<prefix>_<time>_<random>`, with a password that must
 * never reach the logs: `url` reaches it; `create()` makes both, `drop()` removes them (a clean-up:
 * it never fails).
 */
export function runDatabase(prefix) {
  const name = `${prefix}_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  const url = new URL(serverUrl);
  url.username = name;
  url.password = password;
  url.pathname = `/${name}`;
  return {
    name,
    password,
    url,
    async create() {
      await psql(`create role "${name}" login password '${password}'`, serverUrl);
      await psql(`create database "${name}" owner "${name}"`, serverUrl);
    },
    async drop() {
      await psql(`drop database if exists "${name}" with (force)`, serverUrl).catch(
        () => undefined,
      );
      await psql(`drop role if exists "${name}"`, serverUrl).catch(() => undefined);
    },
  };
}

/** The operator CLI inside the image, run with `runFlags`; what it prints, parsed. */
export const imageCli =
  (runFlags) =>
  async (...args) =>
    JSON.parse(await podman('run', '--rm', ...runFlags, image, 'node', 'dist/cli.js', ...args));

/** A local TCP port with nothing listening on it (the kernel's pick, released at once). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
