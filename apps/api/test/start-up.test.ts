import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/db/embedded';
import { ensureBuilt } from './built-server';
import { postgresOn, spawnServer, untilServing, type ServerRun } from './server-process';

/**
 * `pnpm start`'s server (the built `dist/main.js`) as a real process on its embedded PostgreSQL,
 * when its start fails: no database may be left running behind it, and the reason is said in
 * words.
 */

const apiDir = path.resolve(import.meta.dirname, '..');

/** The server as `pnpm start` runs it (built), on the embedded database in `dataDir`. */
function startServer(dataDir: string, port: number): ServerRun {
  const run = spawnServer(process.execPath, ['dist/main.js'], {
    cwd: apiDir,
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
  });
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 90_000);
  void run.exited.then(() => clearTimeout(timer));
  return run;
}

/** How a run ended: its exit code. */
const exitCode = async (run: ServerRun) => (await run.exited).code;

/** Waits for a process to be gone (the server's stop has returned, its children may lag). */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (!existsSync(`/proc/${pid}`)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

function occupy(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const linux = process.platform === 'linux';

beforeAll(ensureBuilt, 180_000);

describe.runIf(linux)('start-up failures of the embedded database', { timeout: 120_000 }, () => {
  let dir: string;
  let dataDir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'boxoffice-start-up-'));
    // As root, PostgreSQL runs as its own user, which must be able to reach its data.
    await chmod(dir, 0o755);
    dataDir = path.join(dir, 'postgres');
  });
  afterAll(async () => {
    for (const pid of postgresOn(dataDir)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('stops its database and names the port when the port is busy', async () => {
    const port = await freePort();
    const busy = await occupy(port);
    try {
      const run = startServer(dir, port);
      expect(await exitCode(run)).toBe(1);
      expect(run.output()).toContain(`Port ${port} is already in use`);
      expect(run.output()).toContain(`PORT=${port + 1} pnpm start`);
      expect(run.output()).not.toMatch(/\bundefined\b|\n\s+at /);
      // The database was created and seeded, then stopped: none is left running.
      expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
      expect(postgresOn(dataDir)).toEqual([]);
    } finally {
      busy.close();
    }
  });

  it('refuses a second start on the same data directory, naming the first server', async () => {
    const port = await freePort();
    const first = startServer(dir, port);
    await untilServing(first, port, 90_000);
    try {
      const second = startServer(dir, await freePort());
      expect(await exitCode(second)).toBe(1);
      expect(second.output()).toContain('already in use by another Boxoffice server');
      expect(second.output()).toContain(`kill ${first.child.pid}`);
      expect(second.output()).not.toMatch(/\bundefined\b|\n\s+at /);
      // The first one still serves.
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      first.child.kill('SIGTERM');
    }
    expect(await exitCode(first)).toBe(0);
    expect(postgresOn(dataDir)).toEqual([]);
  });

  it('names a database left behind by a killed server, with its pid', async () => {
    const port = await freePort();
    const first = startServer(dir, port);
    await untilServing(first, port, 90_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const [orphan] = postgresOn(dataDir);
    expect(orphan).toBeDefined();

    const next = startServer(dir, port);
    expect(await exitCode(next)).toBe(1);
    expect(next.output()).toContain(`still running (process ${orphan})`);
    expect(next.output()).toContain(`kill ${orphan}`);

    // As told: end it, and the next start serves.
    process.kill(orphan!, 'SIGTERM');
    expect(await gone(orphan!)).toBe(true);
    const after = startServer(dir, port);
    await untilServing(after, port, 90_000);
    after.child.kill('SIGTERM');
    expect(await exitCode(after)).toBe(0);
    expect(postgresOn(dataDir)).toEqual([]);
  });
});

describe.runIf(linux && process.getuid?.() === 0)('as root', { timeout: 60_000 }, () => {
  it('stops at once, in words, when its data sits in a private directory', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'boxoffice-private-'));
    try {
      // mkdtemp makes it 0700: the postgres user cannot enter it, as with /root.
      await mkdir(path.join(dir, 'data'));
      const run = startServer(path.join(dir, 'data'), await freePort());
      expect(await exitCode(run)).toBe(1);
      expect(run.output()).toContain("runs as the 'postgres' user");
      expect(run.output()).toContain(`cannot reach ${dir} (a private directory)`);
      expect(run.output()).toContain('DATABASE_URL');
      expect(run.output()).not.toMatch(/EACCES|\n\s+at /);
      expect(postgresOn(path.join(dir, 'data', 'postgres'))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
