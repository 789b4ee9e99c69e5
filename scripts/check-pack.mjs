// Installs @boxoffice/contract and @boxoffice/sdk the way users get them: packs both as they
// would be published, installs the SDK's tarball alone with plain npm into an empty project (it
// must bring no dependency), then loads the SDK and its `doors` entry from ESM and from CommonJS
// (on the repository's Node and on Node 20) and calls a stub server, type-checks a TypeScript consumer under
// `moduleResolution: node16` (ESM and CJS), and last installs and loads the contract's tarball.
//
//   pnpm check:pack               (KEEP_PACK_DIR=1 keeps the temporary project for a look)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const packages = ['contract', 'sdk'].map((name) => join(root, 'packages', name));
const node20 = join(root, 'packages/sdk/node_modules/node20/bin/node');
const tsc = join(root, 'node_modules/typescript/bin/tsc');

const EVENT = {
  id: 'evt_0000000000000000000000aa',
  name: 'Riverside Jazz Night',
  description: null,
  venue: 'Riverside Hall',
  timezone: 'Europe/London',
  starts_at: '2026-06-01T19:00:00.000Z',
  ends_at: '2026-06-01T23:00:00.000Z',
  doors_open_at: null,
  currency: 'GBP',
  capacity: 400,
  status: 'published',
  published_at: '2026-05-01T09:00:00.000Z',
  cancelled_at: null,
  created_at: '2026-04-30T09:00:00.000Z',
  updated_at: '2026-05-01T09:00:00.000Z',
};
const API_KEY = 'bxo_live_packcheck';
const REQUEST_ID = 'req_packcheck';

/** Runs a command with inherited output; rejects on a non-zero exit. */
function run(command, args, options = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', ...options });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

/** Runs a command and returns its stdout. */
function capture(command, args, options = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], ...options });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolvePromise(out) : reject(new Error(`${command} ${args.join(' ')} failed`)),
    );
  });
}

function sizeOf(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

/** The API's answers for what the consumers ask: a list of events, and a 404 for the rest. */
function startStub() {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    const send = (status, body) => {
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'x-request-id': REQUEST_ID,
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '59',
        'x-ratelimit-reset': '60',
      });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${API_KEY}`) {
      send(401, { error: 'Invalid or missing API key', code: 'invalid_api_key' });
    } else if (req.method === 'GET' && url.pathname === '/api/v1/events') {
      const page = Number(url.searchParams.get('page') ?? 1);
      const limit = Number(url.searchParams.get('limit') ?? 20);
      send(200, { data: page === 1 ? [EVENT] : [], total: 1, page, limit });
    } else {
      send(404, { error: 'event not found', code: 'not_found' });
    }
  });
  return new Promise((resolvePromise) => {
    server.listen(0, '127.0.0.1', () => resolvePromise(server));
  });
}

const ESM_CONSUMER = `import assert from 'node:assert/strict';
import { Boxoffice, NotFoundError } from '@boxoffice/sdk';

const client = new Boxoffice({ apiKey: '${API_KEY}', baseURL: process.argv[2], maxRetries: 0 });
const page = await client.events.list({ limit: 5 });
assert.equal(page.total, 1);
assert.equal(page.limit, 5);
assert.equal(page.data[0].id, '${EVENT.id}');
assert.equal(page.hasNextPage(), false);
await assert.rejects(client.events.get('evt_missing'), (err) => {
  assert.ok(err instanceof NotFoundError, 'a 404 is a NotFoundError');
  assert.equal(err.status, 404);
  assert.equal(err.code, 'not_found');
  assert.equal(err.requestId, '${REQUEST_ID}');
  return true;
});
assert.equal(client.rateLimit('read').limit, 60);
const { openDoor, memoryStore } = await import('@boxoffice/sdk/doors');
const door = openDoor(client, { eventId: '${EVENT.id}', gate: 'North', deviceId: 'pack-1', store: memoryStore() });
assert.equal(await door.resume(), false);
await door.close();
console.log('  ESM      ok on Node ' + process.versions.node);
`;

const CJS_CONSUMER = `const assert = require('node:assert/strict');
const { Boxoffice, NotFoundError } = require('@boxoffice/sdk');

async function main() {
  const client = new Boxoffice({ apiKey: '${API_KEY}', baseURL: process.argv[2], maxRetries: 0 });
  const events = [];
  for await (const event of client.events.list()) events.push(event);
  assert.deepEqual(events.map((event) => event.id), ['${EVENT.id}']);
  const err = await client.events.get('evt_missing').then(
    () => assert.fail('expected a NotFoundError'),
    (error) => error,
  );
  assert.ok(err instanceof NotFoundError, 'a 404 is a NotFoundError');
  assert.equal(err.status, 404);
  assert.equal(err.requestId, '${REQUEST_ID}');
  const { openDoor } = require('@boxoffice/sdk/doors');
  const door = openDoor(client, { eventId: '${EVENT.id}', gate: 'North', deviceId: 'pack-1' });
  assert.equal(door.pending, 0);
  await door.close();
  console.log('  CommonJS ok on Node ' + process.versions.node);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;

const TS_BODY = `const client = new Boxoffice({ apiKey: 'bxo_live_example', maxRetries: 1, timeout: 10_000 });
  const page: Page<Event> = await client.events.list({ limit: 5, status: 'published' });
  const names: string[] = page.data.map((event) => event.name);
  for await (const event of client.events.list({ updated_since: new Date() })) {
    names.push(event.name);
  }
  const { data, response } = await client.tickets.get('tkt_x').withResponse();
  const status: 'valid' | 'checked_in' | 'void' = data.status;
  const requestId: string | null = response.headers.get('x-request-id');
  try {
    await client.checkins.create({ code: 'abc', event_id: 'evt_x' }, { idempotencyKey: 'scan-1' });
  } catch (err) {
    if (err instanceof NotFoundError) console.log(err.status, err.requestId);
    else if (err instanceof APIError) console.log(err.code);
  }
  // @ts-expect-error ids are strings
  void client.events.get(42);
  const door = openDoor(client, { eventId: 'evt_x', gate: 'North', deviceId: 'pack-1' });
  const outcome: ScanOutcome = await door.scan('abc', { direction: 'exit' });
  const store: DoorStore = memoryStore();
  return { names, status, requestId, remaining: client.rateLimit('write').remaining, outcome, store };`;

const TS_IMPORT = `import { APIError, Boxoffice, NotFoundError, type Event, type Page } from '@boxoffice/sdk';
import { memoryStore, openDoor, type DoorStore, type ScanOutcome } from '@boxoffice/sdk/doors';`;

const TSCONFIG = {
  compilerOptions: {
    module: 'node16',
    moduleResolution: 'node16',
    target: 'es2022',
    lib: ['es2022'],
    types: ['node'],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
  },
  files: ['consumer.mts', 'consumer.cts'],
};

async function main() {
  const started = Date.now();
  const work = mkdtempSync(join(tmpdir(), 'boxoffice-pack-'));
  const tarballs = join(work, 'tarballs');
  const project = join(work, 'project');
  mkdirSync(tarballs);
  mkdirSync(project);
  let server;
  try {
    console.log('check:pack: building the published packages');
    await run('pnpm', [
      'exec',
      'turbo',
      'run',
      'build',
      '--filter=@boxoffice/sdk',
      '--output-logs=errors-only',
    ]);

    for (const dir of packages) {
      await capture('pnpm', ['pack', '--pack-destination', tarballs], { cwd: dir });
    }
    const files = readdirSync(tarballs).map((name) => join(tarballs, name));
    for (const file of files) {
      const manifest = JSON.parse(await capture('tar', ['-xzOf', file, 'package/package.json']));
      const deps = JSON.stringify(manifest.dependencies ?? {});
      if (/workspace:|catalog:/.test(deps)) {
        throw new Error(`${manifest.name}: unresolved workspace protocol in dependencies: ${deps}`);
      }
      console.log(`  packed ${manifest.name}@${manifest.version}: ${kB(statSync(file).size)}`);
    }

    // The SDK alone first: it has no dependencies, and its declarations must not need any.
    const sdkTarball = files.find((file) => /boxoffice-sdk-[^/]*\.tgz$/.test(file));
    const contractTarball = files.find((file) => /boxoffice-contract-[^/]*\.tgz$/.test(file));
    if (!sdkTarball || !contractTarball)
      throw new Error(`unexpected tarballs: ${files.join(', ')}`);
    console.log('check:pack: installing the SDK tarball alone with npm into an empty project');
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'boxoffice-consumer', version: '0.0.0', private: true }, null, 2),
    );
    // Keep pnpm's own settings (passed down as npm_config_*) away from npm.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([key]) =>
          !key.startsWith('npm_') || ['npm_config_registry', 'npm_config_cache'].includes(key),
      ),
    );
    const npmInstall = (...specs) =>
      run(
        'npm',
        ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', ...specs],
        { cwd: project, env },
      );
    // The oldest TypeScript the README promises; the repository's own is checked too.
    await npmInstall(sdkTarball, '@types/node@20', 'typescript@5.0');
    for (const name of ['@boxoffice/contract', 'zod', '@ts-rest/core']) {
      if (existsSync(join(project, 'node_modules', name))) {
        throw new Error(`installing the SDK brought ${name} along: it should need nothing`);
      }
    }
    console.log(
      `  installed @boxoffice/sdk alone: ${kB(sizeOf(join(project, 'node_modules/@boxoffice/sdk')))} on disk`,
    );

    await writeFile(join(project, 'esm.mjs'), ESM_CONSUMER);
    await writeFile(join(project, 'cjs.cjs'), CJS_CONSUMER);
    await writeFile(
      join(project, 'consumer.mts'),
      `${TS_IMPORT}\n\nexport async function use() {\n  ${TS_BODY}\n}\n`,
    );
    await writeFile(
      join(project, 'consumer.cts'),
      `${TS_IMPORT}\n\nexport async function use() {\n  ${TS_BODY}\n}\n`,
    );
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));

    server = await startStub();
    const { port } = server.address();
    const baseURL = `http://127.0.0.1:${port}/api/v1`;
    const nodes = [process.execPath];
    if (existsSync(node20)) nodes.push(node20);
    else console.warn(`  (no Node 20 at ${node20}: run pnpm install; checking one Node only)`);
    console.log('check:pack: using the installed SDK against a stub server');
    for (const node of nodes) {
      await run(node, ['esm.mjs', baseURL], { cwd: project });
      await run(node, ['cjs.cjs', baseURL], { cwd: project });
    }

    console.log('check:pack: type-checking a consumer (node16 resolution, ESM and CommonJS)');
    for (const compiler of [join(project, 'node_modules/typescript/bin/tsc'), tsc]) {
      const version = (await capture(process.execPath, [compiler, '--version'])).trim();
      await run(process.execPath, [compiler, '-p', project], { cwd: project });
      console.log(`  types    ok with TypeScript ${version.replace(/^Version /, '')}`);
    }

    console.log('check:pack: installing the contract tarball and loading it (ESM and CommonJS)');
    await npmInstall(contractTarball);
    await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const { contract } = await import('@boxoffice/contract'); if (!contract.events.get) process.exit(1);",
      ],
      { cwd: project },
    );
    await run(
      process.execPath,
      ['-e', "if (!require('@boxoffice/contract').contract.events.get) process.exit(1);"],
      { cwd: project },
    );
    const runtime = ['@boxoffice/contract', 'zod', '@ts-rest'].reduce(
      (sum, name) => sum + sizeOf(join(project, 'node_modules', name)),
      0,
    );
    console.log(`  contract ok; with zod and @ts-rest/core: ${kB(runtime)} on disk`);
    console.log(`check:pack: ok in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    server?.close();
    if (process.env.KEEP_PACK_DIR) console.log(`check:pack: kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`check:pack: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
