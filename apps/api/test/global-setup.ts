import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { migrateDatabase } from '../src/db/orm';

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

  const name = `boxoffice_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();

  await migrateDatabase(databaseUrl);

  project.provide('databaseUrl', databaseUrl);
  project.provide('redisUrl', process.env.REDIS_URL || undefined);

  return async () => {
    const cleanup = new pg.Client({ connectionString: serverUrl });
    await cleanup.connect();
    await cleanup.query(`drop database if exists "${name}" with (force)`);
    await cleanup.end();
    await stopEmbedded?.();
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  };
}
