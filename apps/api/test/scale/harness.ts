import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scope } from '@boxoffice/contract';
import { ConfigSchema } from '../../src/config';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded';
import { createOrm, migrate, type Orm } from '../../src/db/orm';
import { entities } from '../../src/modules/entities';
import { generateKey } from '../../src/modules/api-keys/api-key.service';
import { createEvent } from '../../src/modules/events/event.service';
import { placeOrder } from '../../src/modules/orders/order.service';
import { createOrganisation } from '../../src/modules/organisations/organisation.service';
import { createTier } from '../../src/modules/tiers/tier.service';
import { ensureBuilt } from '../built-server';
import { fetchJson, type JsonAnswer } from '../fetch-json';

export { freePort };

const apiDir = fileURLToPath(new URL('../..', import.meta.url));

// ---------------------------------------------------------------------------------------------
// Child processes: every one is tracked, so a failing test (or a dying worker) leaves none behind.

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Spawned {
  child: ChildProcess;
  /** The last part of what the process wrote to stdout and stderr (for failure messages). */
  output(): string;
  readonly exited: Promise<Exit>;
  hasExited(): boolean;
  /** Sends `signal`, then SIGKILL if the process is still there after `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
}

function launch(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv },
) {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let done = false;
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => {
      output += `\n${error.message}`;
      resolve({ code: null, signal: null });
    });
  }).finally(() => {
    done = true;
    children.delete(child);
  });
  const spawned: Spawned = {
    child,
    output: () => output,
    exited,
    hasExited: () => done,
    async stop(signal = 'SIGTERM', timeoutMs = 10_000) {
      if (done) return exited;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return spawned;
}

/** Stops every process still running (afterAll of each file). */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Polling

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns something truthy; fails with `what` after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  { timeoutMs = 15_000, intervalMs = 50 } = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await sleep(intervalMs);
  }
}

/** Settles as `promise` does, or fails with `what` after `timeoutMs`. */
export async function within<T>(what: string, promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${timeoutMs} ms: ${what}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface Response<T = any> extends JsonAnswer<T> {
  /** Wall-clock time from sending to the full body. */
  ms: number;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** A request still unanswered after this long counts as hung (throws). */
  timeoutMs?: number;
}

/** One JSON request over a real connection; throws on connection errors and timeouts. */
export async function request<T = any>(
  baseUrl: string,
  method: string,
  urlPath: string,
  options: RequestOptions = {},
): Promise<Response<T>> {
  const { timeoutMs = 10_000, ...sent } = options;
  const started = performance.now();
  const answer = await fetchJson<T>(`${baseUrl}${urlPath}`, method, {
    ...sent,
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { ...answer, ms: performance.now() - started };
}

/** The error code of a failed connection attempt (`ECONNREFUSED`…), or `connected`. */
export function tryConnect(port: number, timeoutMs = 2_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      resolve('ETIMEDOUT');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

export const countBy = <T>(items: readonly T[], keyOf: (item: T) => string | number) => {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const key = String(keyOf(item));
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
};

// ---------------------------------------------------------------------------------------------
// The API server, as deployed: its own process, configured only through the environment.

export interface ApiProcess extends Spawned {
  port: number;
  baseUrl: string;
}

/** The parent's environment without any of the server's own settings. */
function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(ConfigSchema.shape)) delete env[name];
  return env;
}

/** Rate limits far above any load a suite sends, for suites that measure something else. */
export const UNLIMITED_RATES = {
  RATE_LIMIT_READS_PER_MINUTE: '1000000',
  RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
};

export interface StartApiOptions {
  /** Runs the built server (`dist/main.js`, as `pnpm start` and the image do), building it first. */
  built?: boolean;
}

/**
 * Starts `src/main.ts` (from source, through tsx), or the built server, on a free port and waits
 * for `/readyz`.
 */
export async function startApi(
  env: Record<string, string | undefined>,
  options: StartApiOptions = {},
): Promise<ApiProcess> {
  if (options.built) await ensureBuilt();
  const port = await freePort();
  const proc = launch(
    process.execPath,
    options.built
      ? ['dist/main.js']
      : ['--conditions=@boxoffice/source', '--import', 'tsx', 'src/main.ts'],
    {
      cwd: apiDir,
      env: {
        ...baseEnv(),
        HOST: '127.0.0.1',
        PORT: String(port),
        NODE_ENV: 'test',
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
        // Webhook delivery only where a suite asks for it: the suites share one database.
        WEBHOOK_WORKER: 'off',
        ...env,
      },
    },
  );
  const api: ApiProcess = { ...proc, port, baseUrl: `http://127.0.0.1:${port}` };
  try {
    await until(
      `the API on port ${port} to report ready`,
      async () => {
        if (proc.hasExited()) {
          throw new Error(`the API exited during start-up:\n${proc.output()}`);
        }
        const ready = await request(api.baseUrl, 'GET', '/readyz', { timeoutMs: 3_000 }).catch(
          () => null,
        );
        return ready?.status === 200;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
  } catch (error) {
    await proc.stop('SIGKILL');
    throw error;
  }
  return api;
}

// ---------------------------------------------------------------------------------------------
// Redis, as a child process of its own, so that it can be stopped without disturbing anyone.

export const redisServerAvailable = (): boolean =>
  spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/** PING over a raw connection: true when Redis answers PONG. */
export function redisAnswers(port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.once('error', () => done(false));
  });
}

export async function startRedisServer(port: number): Promise<Spawned> {
  const proc = launch(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--dir',
      tmpdir(),
    ],
    { env: process.env },
  );
  await until(`redis-server on port ${port}`, async () => {
    if (proc.hasExited()) throw new Error(`redis-server exited:\n${proc.output()}`);
    return redisAnswers(port);
  });
  return proc;
}

// ---------------------------------------------------------------------------------------------
// A PostgreSQL of the test's own (embedded), that it may stop and start at will.

export interface ScratchPostgres {
  url: string;
  port: number;
  running(): boolean;
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and deletes its data. */
  destroy(): Promise<void>;
  /**
   * Suspends the server and every backend (SIGSTOP): connections stay open and nothing answers,
   * as when its host hangs or its disk stalls. `thaw` resumes them.
   */
  freeze(): Promise<void>;
  thaw(): Promise<void>;
}

/** Sends `name` to `pid`, if it still exists (a backend may exit between listing and signal). */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** The pids of `root` and all its descendants, read from /proc (Linux). */
async function processTree(root: number): Promise<number[]> {
  const parents = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // `pid (comm) state ppid …`; comm may contain spaces and parentheses.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isFinite(ppid)) continue;
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
  }
  const tree: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(parents.get(pid) ?? []));
  }
  return tree;
}

export async function startScratchPostgres(): Promise<ScratchPostgres> {
  const dir = await mkdtemp(path.join(tmpdir(), 'boxoffice-scale-pg-'));
  // As root, PostgreSQL runs as a separate `postgres` user that must be able to reach its data.
  await chmod(dir, 0o755);
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  // Persistent: a non-persistent embedded server deletes its data on stop; this one restarts.
  const open = () => startEmbeddedPostgres({ dataDir, port, persistent: true });
  let current: EmbeddedDatabase | null = null;
  try {
    current = await open();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const url = current.url;
  const postmasterPid = async () =>
    Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const thaw = async () => {
    if (!current) return;
    const postmaster = await postmasterPid();
    for (const pid of await processTree(postmaster)) signal(pid, 'SIGCONT');
  };
  return {
    url,
    port,
    running: () => current !== null,
    async stop() {
      const stopping = current;
      current = null;
      await stopping?.stop();
    },
    async start() {
      if (!current) current = await open();
    },
    async destroy() {
      await thaw().catch(() => undefined);
      const stopping = current;
      current = null;
      await stopping?.stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
    async freeze() {
      const postmaster = await postmasterPid();
      // The postmaster first, so that it forks no backend while the others are being stopped.
      signal(postmaster, 'SIGSTOP');
      for (const pid of await processTree(postmaster)) signal(pid, 'SIGSTOP');
    },
    thaw,
  };
}

/** A scratch PostgreSQL, migrated, with an ORM on it. */
export async function startMigratedPostgres(): Promise<{ db: ScratchPostgres; orm: Orm }> {
  const db = await startScratchPostgres();
  try {
    const orm = await createOrm({ entities, databaseUrl: db.url });
    await migrate(orm).catch(async (error: unknown) => {
      await orm.close();
      throw error;
    });
    return { db, orm };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

/**
 * Ends what a suite on a scratch PostgreSQL started, as far as its `beforeAll` got: the API
 * processes, then the ORM, then the database and its data.
 */
export async function stopScratchSuite(orm?: Orm, db?: ScratchPostgres): Promise<void> {
  await stopAll();
  await orm?.close();
  await db?.destroy();
}

// ---------------------------------------------------------------------------------------------
// Data, through the services, on any database (the shared fixtures use the run's test database).

export interface Tenant {
  organisationId: string;
  key: string;
  apiKeyId: string;
}

export async function createTenantIn(
  orm: Orm,
  scopes: Scope[] = ['read', 'write', 'checkins:write'],
): Promise<Tenant> {
  const em = orm.em.fork();
  const org = await createOrganisation(em, {
    name: `Scale org ${randomBytes(3).toString('hex')}`,
    plan: 'pro',
  });
  const { apiKey, key } = await generateKey(em, { organisationId: org.id, scopes, name: 'door' });
  return { organisationId: org.id, key, apiKeyId: apiKey.id };
}

/** A published event with `count` valid tickets; returns the ticket ids in issue order. */
export async function issueTickets(
  orm: Orm,
  organisationId: string,
  count: number,
): Promise<{ eventId: string; ticketIds: string[] }> {
  const ctx = () => ({ em: orm.em.fork(), organisationId, livemode: true });
  const event = await createEvent(ctx(), {
    name: 'Scale event',
    timezone: 'Europe/London',
    starts_at: '2027-06-01T18:00:00Z',
    ends_at: '2027-06-01T23:00:00Z',
    currency: 'GBP',
    status: 'published',
  });
  const tier = await createTier(ctx(), { event_id: event.id, name: 'Standing', price: 1000 });
  for (let issued = 0; issued < count; issued += 100) {
    await placeOrder(ctx(), {
      eventId: event.id,
      buyerName: 'Scale Buyer',
      buyerEmail: `buyer${issued}@example.com`,
      lines: Array.from({ length: Math.min(100, count - issued) }, (_, i) => ({
        tierId: tier.id,
        attendee: {
          firstName: `Guest${issued + i}`,
          lastName: 'Scale',
          email: null,
          company: null,
          answers: [],
        },
      })),
      feePerTicket: 0,
      status: 'completed',
      placedAt: new Date(),
    });
  }
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<{ id: string }[]>('select id from tickets where event_id = ? order by id', [event.id]);
  return { eventId: event.id, ticketIds: rows.map((row) => row.id) };
}
