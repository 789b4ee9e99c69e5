import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/embedded';
import { repoRoot } from '../built-server';
import { sleep, until, within } from './harness';

/** The pids of the PostgreSQL servers (postmasters) running on `dataDir`, from /proc. */
function postgresOn(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const at = argv.indexOf('-D');
    if (argv[0]?.endsWith('/postgres') && at >= 0 && argv[at + 1] === dataDir) {
      pids.push(Number(entry));
    }
  }
  return pids;
}

// `pnpm start` as the README runs it, on its embedded PostgreSQL, stopped with Ctrl-C: the
// terminal sends SIGINT to its whole foreground process group (pnpm, the shell pnpm runs the script
// in, and everything they started that stayed in the group).
describe.runIf(process.platform === 'linux')('Ctrl-C on `pnpm start`', { timeout: 240_000 }, () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'boxoffice-ctrl-c-'));
    // As root, PostgreSQL runs as its own user, which must be able to reach its data.
    await chmod(dir, 0o755);
  });
  afterAll(async () => {
    for (const pid of postgresOn(path.join(dir, 'postgres'))) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('stops in one line, with no warning or stack trace, exits 0 and leaves no database behind', async () => {
    const port = await freePort();
    const child = spawn('pnpm', ['start'], {
      cwd: repoRoot,
      env: {
        // A terminal's PATH: without the `node_modules/.bin` folders this test runs under, where
        // `node` is a shell script that pnpm itself would then run in.
        PATH: (process.env.PATH ?? '')
          .split(path.delimiter)
          .filter((dir) => !dir.includes(`node_modules${path.sep}`))
          .join(path.delimiter),
        HOME: process.env.HOME ?? '',
        DATA_DIR: dir,
        PORT: String(port),
        HOST: '127.0.0.1',
      },
      // A process group of its own, as a terminal's foreground job.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const group = child.pid ?? 0;
    try {
      await until(
        'pnpm start to serve',
        async () => {
          if (child.exitCode !== null) throw new Error(`pnpm start exited:\n${output}`);
          return fetch(`http://127.0.0.1:${port}/healthz`).then(
            (response) => response.ok,
            () => false,
          );
        },
        { timeoutMs: 200_000, intervalMs: 200 },
      );
      // Its request line is written; what follows is the stop's.
      await sleep(500);
      const before = output.length;
      process.kill(-group, 'SIGINT');
      const exit = await within('pnpm start to exit', exited, 30_000);
      const stop = output.slice(before);

      expect(exit, output).toEqual({ code: 0, signal: null });
      expect(stop.trim().split('\n'), stop).toEqual([expect.stringMatching(/ INFO: stopped$/)]);
      expect(stop).not.toMatch(/WARN|ERROR|ELIFECYCLE|\n\s+at /);
      expect(postgresOn(path.join(dir, 'postgres'))).toEqual([]);
    } finally {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // The whole group is gone, as it should be.
      }
    }
  });
});
