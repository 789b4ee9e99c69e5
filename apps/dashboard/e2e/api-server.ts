import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/**
 * The real, built API server serving the built dashboard, on a database of its own, for the
 * browser suites. They need the built dashboard (`dist/`, the `test` script builds it) and the
 * built API (turbo builds dependencies first).
 */

const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const dashboardDir = path.join(appRoot, 'dist');
// The API is a devDependency of the dashboard, so turbo builds it before these suites run.
const apiDir = path.join(appRoot, 'node_modules', '@boxoffice', 'api');

/** Fails early, with the command to run, when a build the suites drive is missing. */
export function requireBuilds(): void {
  for (const [file, hint] of [
    [
      path.join(dashboardDir, 'index.html'),
      'build the dashboard: pnpm --filter @boxoffice/dashboard build',
    ],
    [
      path.join(apiDir, 'dist', 'main.js'),
      'build the API: pnpm turbo run build --filter=@boxoffice/api',
    ],
  ] as const) {
    if (!existsSync(file)) throw new Error(`${file} is missing: ${hint}`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** Runs a node script of the API to completion; rejects with its output when it fails. */
export function run(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: apiDir, env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${script} ${args.join(' ')}: ${output}`)),
    );
  });
}

export interface TestDatabase {
  env: NodeJS.ProcessEnv;
  cleanup: () => Promise<void>;
}

/**
 * A database for this run: a fresh, migrated one on the server of DATABASE_URL when it is set,
 * otherwise none (the API then starts its embedded PostgreSQL in a temporary DATA_DIR).
 */
export async function prepareDatabase(label: string): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const dataDir = await mkdtemp(path.join(tmpdir(), `boxoffice-${label}-`));
    // As root, PostgreSQL runs as its own user, which must be able to reach its data.
    await chmod(dataDir, 0o755);
    return {
      env: { DATA_DIR: dataDir },
      cleanup: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `boxoffice_${label.replaceAll('-', '_')}_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  await run('dist/cli.js', ['migrate'], {
    ...process.env,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
  });
  return {
    env: { DATABASE_URL: databaseUrl },
    cleanup: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists "${name}" with (force)`);
      await client.end();
    },
  };
}

export interface ApiServer {
  origin: string;
  stop: () => Promise<void>;
}

/** `node dist/main.js` of the API, serving the built dashboard, ready when /healthz answers. */
export async function startApiServer(databaseEnv: NodeJS.ProcessEnv): Promise<ApiServer> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...databaseEnv,
    PORT: String(port),
    HOST: '127.0.0.1',
    DASHBOARD_DIR: dashboardDir,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    // The journey's webhook receiver listens on loopback, over plain HTTP.
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '100',
  };
  if (!databaseEnv.DATABASE_URL) delete env.DATABASE_URL;
  // Rate-limit counts stay in memory: this run shares nothing with other runs.
  delete env.REDIS_URL;

  const child: ChildProcess = spawn(process.execPath, ['dist/main.js'], { cwd: apiDir, env });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));

  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API server exited:\n${output}`);
    const healthy = await fetch(`${origin}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the API server did not answer /healthz in time:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    origin,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
