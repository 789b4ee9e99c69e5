import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import type { Scope } from '@boxoffice/contract';
import { createApp, type AppDeps } from '../src/app';
import type { Metrics } from '../src/http/metrics';
import { freePort } from '../src/db/embedded';
import { createOrm, migrate, type Orm } from '../src/db/orm';
import { entities } from '../src/modules/entities';
import { ATTEMPT_LIMITS, createAttemptLimits, type AttemptLimits } from '../src/http/attempt-limit';
import { answerProtocolErrors } from '../src/http/client-error';
import { createRateLimits, type RateLimits } from '../src/http/rate-limit';
import { createDatabaseOn, type ScratchDatabase } from './databases';
import { fetchJson, type JsonAnswer, type JsonRequest } from './fetch-json';
import { checkedResponses } from './response-recorder';
import { generateKey } from '../src/modules/api-keys/api-key.service';
import { ExportJobs } from '../src/modules/exports/export-jobs';
import type { Plan } from '../src/modules/organisations/organisation.entity';
import { createOrganisation } from '../src/modules/organisations/organisation.service';
import { testOrganisationOf } from '../src/modules/organisations/test-environment.service';
import { WebhookEngine, type WebhookEngineOptions } from '../src/modules/webhooks/webhook-engine';

let orm: Promise<Orm> | undefined;

/** A migrated ORM on this run's test database (shared by the tests of one file). */
export function getTestOrm(): Promise<Orm> {
  orm ??= createOrm({ entities, databaseUrl: inject('databaseUrl'), poolMax: 20 });
  return orm;
}

export interface TestServer {
  baseUrl: string;
  orm: Orm;
  rateLimits: RateLimits;
  close(): Promise<void>;
}

export interface TestServerOptions {
  readsPerMinute?: number;
  writesPerMinute?: number;
  rateLimits?: RateLimits;
  bodyLimitBytes?: number;
  /** Another ORM than the test database's (e.g. one over an unreachable server). */
  orm?: Orm;
  /** A dashboard build to serve at `/dashboard`. */
  dashboardDir?: string;
  /**
   * A stand-in for the dashboard build to serve at `/dashboard`, each file's content by its path
   * in the build: written to a directory of its own, removed when the server closes.
   */
  dashboardFiles?: Record<string, string>;
  /** Strict-Transport-Security, as in production. */
  hsts?: boolean;
  /** By default every address may make thousands of attempts: the suites share 127.0.0.1. */
  attemptLimits?: AttemptLimits;
  /** Express's `trust proxy`, e.g. `loopback` to play clients of other addresses. */
  trustProxy?: number | string;
  /** An OpenAPI document as the build writes it, to serve instead of generating one. */
  openApiFile?: string;
  /** Where `/api/v1` requests are recorded (the request log); none by default. */
  requestLog?: AppDeps['requestLog'];
  /** The app's metrics; a registry of its own by default. */
  metrics?: Metrics;
  /** Where `POST /exports` hands its exports (an `ExportJobs`); none by default (a 503). */
  exportQueue?: AppDeps['exportQueue'];
}

/** The real app on an ephemeral port, over real HTTP. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const testOrm = options.orm ?? (await getTestOrm());
  const builtDir = options.dashboardFiles && (await writeFiles(options.dashboardFiles));
  const rateLimits =
    options.rateLimits ??
    createRateLimits({
      readsPerMinute: options.readsPerMinute ?? 100_000,
      writesPerMinute: options.writesPerMinute ?? 100_000,
    });
  const app = createApp({
    orm: testOrm,
    rateLimits,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    bodyLimitBytes: options.bodyLimitBytes ?? 100 * 1024,
    dashboardDir: builtDir ?? options.dashboardDir,
    hsts: options.hsts,
    attemptLimits: options.attemptLimits ?? generousAttemptLimits(),
    trustProxy: options.trustProxy,
    openApiFile: options.openApiFile,
    requestLog: options.requestLog,
    metrics: options.metrics,
    exportQueue: options.exportQueue,
  });
  const server: Server = await new Promise((resolve) => {
    const s = createServer(checkedResponses(app)).listen(0, '127.0.0.1', () => resolve(s));
  });
  answerProtocolErrors(server);
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    orm: testOrm,
    rateLimits,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (builtDir) await rm(builtDir, { recursive: true, force: true });
    },
  };
}

/** A new temporary directory holding `files` (each file's content by its relative path). */
async function writeFiles(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'boxoffice-files-'));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return dir;
}

type Keyed = Pick<TestTenant, 'key'>;

/** The test server of a file, with calls made with a tenant's key. */
export interface SharedTestServer extends TestServer {
  get: (tenant: Keyed, path: string) => Promise<CallResult>;
  post: (tenant: Keyed, path: string, body: unknown) => Promise<CallResult>;
  patch: (tenant: Keyed, path: string, body: unknown) => Promise<CallResult>;
}

/**
 * The real app for the tests of this file (or of the `describe` block that calls it): started
 * before they run, closed after. Its fields are read at each use, so it can be passed to `call`
 * and to helpers from the top of the file.
 */
export function useTestServer(options: TestServerOptions = {}): SharedTestServer {
  return shareServer(() => startTestServer(options));
}

/**
 * `useTestServer` over a database that never answers (`unreachableOrm`), closed after the server.
 */
export function useOfflineTestServer(
  options: Omit<TestServerOptions, 'orm'> = {},
): SharedTestServer {
  return shareServer(async () => {
    const orm = await unreachableOrm();
    const server = await startTestServer({ ...options, orm });
    return {
      ...server,
      close: async () => {
        await server.close();
        await orm.close();
      },
    };
  });
}

function shareServer(start: () => Promise<TestServer>): SharedTestServer {
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(() => started?.close());
  const current = (): TestServer => {
    if (!started) throw new Error('the test server starts before the tests: use it in them');
    return started;
  };
  const shared: SharedTestServer = {
    get baseUrl() {
      return current().baseUrl;
    },
    get orm() {
      return current().orm;
    },
    get rateLimits() {
      return current().rateLimits;
    },
    close: () => current().close(),
    get: (tenant, path) => call(shared, 'GET', path, { key: tenant.key }),
    post: (tenant, path, body) => call(shared, 'POST', path, { key: tenant.key, body }),
    patch: (tenant, path, body) => call(shared, 'PATCH', path, { key: tenant.key, body }),
  };
  return shared;
}

/**
 * Attempt limits no ordinary suite reaches: every documented limit, over its own period, with
 * 100,000 attempts. The tests of the limits set their own.
 */
export const generousAttemptLimits = (): AttemptLimits =>
  createAttemptLimits({
    limits: Object.fromEntries(
      Object.entries(ATTEMPT_LIMITS).map(([name, limit]) => [name, { ...limit, points: 100_000 }]),
    ),
  });

export interface TestTenant {
  organisationId: string;
  key: string;
  apiKeyId: string;
}

/** A fresh organisation (Pro unless told otherwise) with one key of the given scopes. */
export async function createTenant(
  scopes: Scope[] = ['read', 'write', 'checkins:write'],
  plan: Plan = 'pro',
): Promise<TestTenant> {
  const em = (await getTestOrm()).em.fork();
  const org = await createOrganisation(em, {
    name: `Test org ${Math.random().toString(36).slice(2, 8)}`,
    plan,
  });
  const { apiKey, key } = await generateKey(em, { organisationId: org.id, scopes, name: 'test' });
  return { organisationId: org.id, key, apiKeyId: apiKey.id };
}

/**
 * A test key (`bxo_test_…`) of a live organisation: its test environment's, made (with its sample
 * data) if it has none yet. `organisationId` is the test environment's.
 */
export async function createTestKey(
  liveOrganisationId: string,
  scopes: Scope[] = ['read', 'write', 'checkins:write'],
): Promise<TestTenant> {
  const em = (await getTestOrm()).em.fork();
  return createKey(await testOrganisationOf(em, liveOrganisationId), scopes);
}

/** Another key for an existing organisation. */
export async function createKey(organisationId: string, scopes: Scope[]): Promise<TestTenant> {
  const em = (await getTestOrm()).em.fork();
  const { apiKey, key } = await generateKey(em, { organisationId, scopes, name: 'extra' });
  return { organisationId, key, apiKeyId: apiKey.id };
}

export type CallOptions = Omit<JsonRequest, 'signal'>;

export type CallResult<T = any> = JsonAnswer<T>;

/** A JSON call over HTTP; `path` is relative to the server root (e.g. `/api/v1/events`). */
export function call<T = any>(
  server: Pick<TestServer, 'baseUrl'>,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult<T>> {
  return fetchJson<T>(`${server.baseUrl}${path}`, method, options);
}

/**
 * A read (GET) then a write (POST of `body`) of `/api/v1/events` with the tenant's key, each
 * answered within `withinMs`; returns the two answers.
 */
export async function readAndWriteEvents(
  server: Pick<TestServer, 'baseUrl'>,
  tenant: Pick<TestTenant, 'key'>,
  body: unknown,
  withinMs = 2000,
): Promise<CallResult[]> {
  const results: CallResult[] = [];
  for (const [method, sent] of [
    ['GET', undefined],
    ['POST', body],
  ] as const) {
    const started = performance.now();
    results.push(await call(server, method, '/api/v1/events', { key: tenant.key, body: sent }));
    expect(performance.now() - started).toBeLessThan(withinMs);
  }
  return results;
}

/** A local TCP port with nothing listening on it (the kernel's free port, released at once). */
export const closedPort = freePort;

/** An ORM whose database never answers (a closed port): every query fails within half a second. */
export async function unreachableOrm(): Promise<Orm> {
  return createOrm({
    entities,
    databaseUrl: `postgres://postgres@127.0.0.1:${await closedPort()}/x`,
    connectTimeoutMs: 500,
  });
}

/** An empty database of its own on this run's PostgreSQL server, for a test that needs one. */
export function createScratchDatabase(prefix: string): Promise<ScratchDatabase> {
  return createDatabaseOn(inject('databaseUrl'), prefix);
}

export interface MigratedDatabase {
  url: string;
  orm: Orm;
  /** Closes the ORM, then drops the database. */
  drop(): Promise<void>;
}

/** A scratch database (`createScratchDatabase`), migrated, with an ORM on it. */
export async function createMigratedDatabase(prefix: string): Promise<MigratedDatabase> {
  const database = await createScratchDatabase(prefix);
  const orm = await createOrm({ databaseUrl: database.url, entities });
  const drop = async () => {
    await orm.close();
    await database.drop();
  };
  await migrate(orm).catch(async (error: unknown) => {
    await drop();
    throw error;
  });
  return { url: database.url, orm, drop };
}

/**
 * The export queue as a server runs it, in this process, on this run's test database, started;
 * files are kept a day. `concurrency` 0 only adds jobs, as a replica that makes no exports.
 */
export async function startExportJobs(
  concurrency: number,
  chunkBytes?: number,
): Promise<ExportJobs> {
  const jobs = new ExportJobs({
    databaseUrl: inject('databaseUrl'),
    logger: pino({ level: 'silent' }),
    em: (await getTestOrm()).em,
    retentionMs: 24 * 3600_000,
    concurrency,
    chunkBytes,
  });
  await jobs.start();
  return jobs;
}

/**
 * The webhook engine as every API process runs it, in this process, allowed to reach loopback
 * receivers over plain HTTP, and looking for changes every 50 ms.
 */
export function localWebhookEngine(
  databaseUrl: string,
  options: Partial<WebhookEngineOptions> = {},
): WebhookEngine {
  return new WebhookEngine({
    databaseUrl,
    logger: pino({ level: 'silent' }),
    allowHttp: true,
    allowPrivate: true,
    timeoutMs: 5000,
    retryDelaySeconds: 1,
    maxRetryDelaySeconds: 60,
    retryLimit: 5,
    disableAfterHours: 72,
    pollIntervalMs: 50,
    ...options,
  });
}
