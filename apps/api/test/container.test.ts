import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../src/db/embedded';
import {
  REFERENCE_ASSETS_DIR,
  REFERENCE_BUNDLE,
  referenceAssetsDir,
  scalarBrowserDir,
} from '../src/http/reference-assets';
import { DOCUMENT_VERSION } from '../src/http/openapi';
import { buildOpenApiDocument } from '../src/openapi/document';
import { locateApiGuide } from '../src/openapi/guides';
import { SERVER_URL_PLACEHOLDER } from '../src/openapi/server-url';
import { ensureBuilt, exec, pnpm, repoRoot } from './built-server';

/**
 * The server as the image runs it (apps/api/Dockerfile): `pnpm deploy --prod` of the built API
 * with the built dashboard beside it, `node dist/cli.js migrate` as the release step, then
 * `node dist/main.js` in a production environment, stopped with SIGTERM.
 */

/** Every file under a directory, by its path relative to it (`/`-separated), sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      path.relative(dir, path.join(entry.parentPath, entry.name)).replaceAll('\\', '/'),
    )
    .sort();
}

/**
 * What a browser can fetch from Scalar's files, starting at the bundle: the modules it imports,
 * statically or on demand, theirs in turn, and the source maps each names. Paths relative to `dir`.
 */
async function reachableFrom(dir: string, entry: string): Promise<string[]> {
  const found = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (found.has(file)) continue;
    found.add(file);
    const code = await readFile(path.join(dir, file), 'utf8');
    const here = path.posix.dirname(file);
    for (const match of code.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*[`'"](\.\.?\/[^`'"]+)[`'"]/g)) {
      pending.push(path.posix.join(here, match[1]!));
    }
    const map = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(code)?.[1];
    if (map) found.add(path.posix.join(here, map));
  }
  return [...found].sort();
}

/** The packages in a node_modules directory, scoped ones as `@scope/name`, sorted. */
function topLevelPackages(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) =>
      name.startsWith('@')
        ? readdirSync(path.join(dir, name)).map((inner) => `${name}/${inner}`)
        : [name],
    )
    .sort();
}

let appDir = '';
let tempDir = '';
let serverUrl = '';
let databaseName = '';
let password = '';
let env: NodeJS.ProcessEnv = {};

/** The operator CLI of the deployed app, as `docker run … node dist/cli.js …`; its JSON output. */
async function cli(...args: string[]): Promise<any> {
  const result = await exec(process.execPath, ['dist/cli.js', ...args], { cwd: appDir, env });
  if (result.code !== 0) throw new Error(`cli ${args.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

let migrations: { first: string[]; second: string[] };
let key = '';
let origin = '';
let child: ChildProcess | undefined;
let stdout = '';
let stderr = '';
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

beforeAll(async () => {
  await ensureBuilt();
  tempDir = await mkdtemp(path.join(tmpdir(), 'boxoffice-container-'));
  appDir = path.join(tempDir, 'app');
  const dashboardDir = path.join(appDir, 'dashboard');
  // The image's build stage: the deployed API, and the dashboard built into it. As in the image,
  // from the lockfile and the store `pnpm install` filled, without the network.
  await pnpm([
    '--config.inject-workspace-packages=true',
    'deploy',
    '--filter=@boxoffice/api',
    '--prod',
    '--offline',
    appDir,
  ]);
  await pnpm([
    '--filter=@boxoffice/dashboard',
    'exec',
    'vite',
    'build',
    '--outDir',
    dashboardDir,
    '--emptyOutDir',
    '--logLevel',
    'warn',
  ]);

  // A fresh database on the test run's server, so that the release step has migrations to apply,
  // owned by a role of its own with a password that must never reach the logs.
  serverUrl = inject('databaseUrl');
  databaseName = `boxoffice_container_${Date.now()}_${randomBytes(3).toString('hex')}`;
  password = randomBytes(12).toString('hex');
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create role "${databaseName}" login password '${password}'`);
  await admin.query(`create database "${databaseName}" owner "${databaseName}"`);
  await admin.end();
  const databaseUrl = new URL(serverUrl);
  databaseUrl.username = databaseName;
  databaseUrl.password = password;
  databaseUrl.pathname = `/${databaseName}`;

  const redisUrl = inject('redisUrl');
  // The image's environment (Dockerfile ENV) and a release's configuration; nothing inherited.
  env = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    DASHBOARD_DIR: dashboardDir,
    DATABASE_URL: databaseUrl.toString(),
    SECRETS_ENCRYPTION_KEYS: `container:${randomBytes(32).toString('base64')}`,
    // Its own Redis keys: the sign-ups of earlier runs within the hour do not count against it.
    ...(redisUrl ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: databaseName } : {}),
  };

  migrations = {
    first: ((await cli('migrate')) as { applied: string[] }).applied,
    second: ((await cli('migrate')) as { applied: string[] }).applied,
  };
  const org = (await cli('org', 'create', '--name', 'Container Hall', '--plan', 'pro')) as {
    id: string;
  };
  key = ((await cli('key', 'create', '--org', org.id, '--scopes', 'read')) as { key: string }).key;

  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['dist/main.js'], {
    cwd: appDir,
    // The suites share one database: webhooks are delivered only where a suite asks.
    env: { ...env, PORT: String(port), HOST: '127.0.0.1', WEBHOOK_WORKER: 'off' },
  });
  child = server;
  server.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })));

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the server exited:\n${stdout}\n${stderr}`);
    const up = await fetch(`${origin}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`no answer on /healthz:\n${stdout}\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 240_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
  if (databaseName) {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`drop database if exists "${databaseName}" with (force)`);
    await admin.query(`drop role if exists "${databaseName}"`);
    await admin.end();
  }
});

describe('the deployed server (the image)', () => {
  it('applies the migrations with the CLI, and a second run has nothing to do', () => {
    expect(migrations.first.length).toBeGreaterThan(0);
    expect(migrations.second).toEqual([]);
  });

  it("prunes the workspace with the lockfile's turbo", async () => {
    const lockfile = await readFile(path.join(repoRoot, 'pnpm-lock.yaml'), 'utf8');
    const dockerfile = await readFile(path.join(repoRoot, 'apps/api/Dockerfile'), 'utf8');
    const locked = /^ {2}turbo@([^:(]+):$/m.exec(lockfile)?.[1];
    expect(locked).toBeDefined();
    expect(/^ARG TURBO_VERSION=(.+)$/m.exec(dockerfile)?.[1]).toBe(locked);
  });

  it('has in node_modules only the packages the bundle leaves to it', async () => {
    expect(existsSync(path.join(appDir, 'dist', 'main.js'))).toBe(true);
    // Native code, pino and the rate limiters' classes, required file by file
    // (apps/api/tsdown.config.ts). Everything else the server loads is bundled into dist/, the
    // workspace's contracts too, or copied there (Scalar's browser files); the development
    // packages (@scalar/api-reference, tsx, vitest, pino-pretty, the embedded PostgreSQL of
    // `pnpm start` in a checkout) are not installed.
    const external = ['@node-rs/argon2', 'pino', 'rate-limiter-flexible'];
    const manifest = JSON.parse(await readFile(path.join(appDir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies).sort()).toEqual(external);
    expect(topLevelPackages(path.join(appDir, 'node_modules'))).toEqual(external);
  });

  it('signs up and in on the dashboard: argon2, native, loads from node_modules', async () => {
    const account = { email: `owner${Date.now()}@example.com`, password: 'a long passphrase' };
    const post = (route: string, body: object) =>
      fetch(`${origin}/dashboard/api${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const signup = await post('/signup', { organisation_name: 'Container Hall', ...account });
    expect(signup.status, await signup.clone().text()).toBe(201);
    await signup.arrayBuffer();
    const login = await post('/login', account);
    expect(login.status, await login.clone().text()).toBe(200);
    await login.arrayBuffer();
    const wrong = await post('/login', { ...account, password: 'not the passphrase' });
    expect(wrong.status).toBe(401);
    await wrong.arrayBuffer();
  });

  it("carries docs/api.md where the server reads the API reference's guides", async () => {
    const found = locateApiGuide(path.join(appDir, 'dist'));
    expect(found).toBe(path.join(appDir, 'dist', 'docs', 'api.md'));
    expect(await readFile(found!, 'utf8')).toBe(
      await readFile(path.join(repoRoot, 'docs', 'api.md'), 'utf8'),
    );
    const response = await fetch(`${origin}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { info: { description: string } };
    expect(document.info.description).toMatch(/^# Authentication and access$/m);
    expect(document.info.description).toMatch(/^# Webhooks$/m);
  });

  it('serves the OpenAPI document the build wrote, as the contract and docs/api.md generate it', async () => {
    const written = await readFile(path.join(appDir, 'dist', 'openapi.json'), 'utf8');
    // The same document; its components may come in another order (the bundle's module objects
    // list their exports as declared, not sorted).
    expect(JSON.parse(written)).toEqual(await buildOpenApiDocument(DOCUMENT_VERSION));
    const response = await fetch(`${origin}/openapi.json`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(
      written.replaceAll(SERVER_URL_PLACEHOLDER, `${origin}/api/v1`),
    );
  });

  it("carries in dist/ what the API reference's page can load of Scalar's files, and only that", async () => {
    const dir = referenceAssetsDir(path.join(appDir, 'dist'));
    expect(dir).toBe(path.join(appDir, 'dist', REFERENCE_ASSETS_DIR));
    const files = filesUnder(dir);
    expect(files).toContain(REFERENCE_BUNDLE);
    expect(files.filter((file) => file.startsWith('chunks/')).length).toBeGreaterThan(50);
    expect(files).toEqual(await reachableFrom(dir, REFERENCE_BUNDLE));
    // As the pinned package has them.
    const source = scalarBrowserDir();
    for (const file of files) {
      const copy = await readFile(path.join(dir, file));
      expect(copy.equals(await readFile(path.join(source, file))), file).toBe(true);
    }
  });

  it('is live and ready', async () => {
    const health = await fetch(`${origin}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${origin}/readyz`);
    expect(ready.status, await ready.clone().text()).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });
  });

  it('serves the API to a key made with the CLI', async () => {
    const response = await fetch(`${origin}/api/v1/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ data: [] });
  });

  it('serves the dashboard', async () => {
    const response = await fetch(`${origin}/dashboard/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toMatch(/<div id="root">/);
  });

  it('serves the API reference from its own copy of the bundle, with production headers', async () => {
    const page = await fetch(`${origin}/docs`);
    expect(page.status).toBe(200);
    await page.arrayBuffer();
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
    const script = await fetch(`${origin}/docs/reference.js`);
    expect(script.status).toBe(200);
    const bundle = /import\('([^']+)'\)/.exec(await script.text())?.[1];
    expect(bundle).toMatch(/^\/docs\//);
    const response = await fetch(`${origin}${bundle}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/javascript/);
    // Its name has no content hash: revalidated (cheaply, by its ETag) on every use.
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('etag')).toMatch(/^W\//);
    // Read to the end: an unread body would hold the connection open past SIGTERM below.
    const code = Buffer.from(await response.arrayBuffer()).toString('utf8');
    expect(code.length).toBeGreaterThan(100_000);
    // A chunk it imports on demand, and its source map, from dist/ too.
    const chunk = /import\(`(\.\/chunks\/[^`]+\.js)`\)/.exec(code)?.[1];
    const map = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(code)?.[1];
    expect(chunk).toBeDefined();
    expect(map).toBeDefined();
    const chunkResponse = await fetch(new URL(chunk!, `${origin}${bundle}`));
    expect(chunkResponse.status).toBe(200);
    expect(chunkResponse.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(chunkResponse.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    await chunkResponse.arrayBuffer();
    const mapResponse = await fetch(new URL(map!, `${origin}${bundle}`));
    expect(mapResponse.status).toBe(200);
    expect(((await mapResponse.json()) as { version: number }).version).toBe(3);
  });

  it('exits 0 promptly on SIGTERM', async () => {
    const started = Date.now();
    child!.kill('SIGTERM');
    const exit = await exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('logged JSON lines only, with no key or database password in them', () => {
    const lines = stdout.split('\n').filter((line) => line.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(() => JSON.parse(line) as unknown, line).not.toThrow();
      expect(JSON.parse(line), line).toEqual(expect.any(Object));
    }
    const output = stdout + stderr;
    expect(output).not.toContain(key);
    expect(output).not.toContain(password);
  });
});
