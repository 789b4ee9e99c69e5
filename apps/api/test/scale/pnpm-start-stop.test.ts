import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/embedded';
import { repoRoot } from '../built-server';
import { postgresOn, spawnServer, untilServing } from '../server-process';
import { sleep, within } from './harness';

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
    const run = spawnServer('pnpm', ['start'], {
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
    });
    const group = run.child.pid ?? 0;
    try {
      await untilServing(run, port, 200_000);
      // Its request line is written; what follows is the stop's.
      await sleep(500);
      const before = run.output().length;
      process.kill(-group, 'SIGINT');
      const exit = await within('pnpm start to exit', run.exited, 30_000);
      const stop = run.output().slice(before);

      expect(exit, run.output()).toEqual({ code: 0, signal: null });
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
