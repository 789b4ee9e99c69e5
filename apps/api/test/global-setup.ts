import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { migrateDatabase } from '../src/db/orm';
import { createDatabaseOn } from './databases';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string | undefined;
  }
}

/**
 * One fresh, migrated database per test run: on the server of DATABASE_URL when set, otherwise
 * on an embedded PostgreSQL in a temporary directory. Tests isolate themselves by organisation.
 */
export default async function setup(project: TestProject) {
  let serverUrl = process.env.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | undefined;
  let tempDir: string | undefined;
  if (!serverUrl) {
    tempDir = await mkdtemp(path.join(tmpdir(), 'boxoffice-test-pg-'));
    // As root, PostgreSQL runs as a separate `postgres` user that must be able to reach its data.
    await chmod(tempDir, 0o755);
    const embedded = await startEmbeddedPostgres({
      dataDir: path.join(tempDir, 'data'),
      persistent: false,
    });
    serverUrl = embedded.url;
    stopEmbedded = () => embedded.stop();
  }

  const database = await createDatabaseOn(serverUrl, 'boxoffice_test');
  await migrateDatabase(database.url);

  project.provide('databaseUrl', database.url);
  project.provide('redisUrl', process.env.REDIS_URL || undefined);

  return async () => {
    await database.drop();
    await stopEmbedded?.();
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  };
}
