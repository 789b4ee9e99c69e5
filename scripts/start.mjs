// `pnpm start`: builds the API and the dashboard, saying only that it does (turbo's own output is
// shown when the build fails), then runs the API server in this terminal.
import { spawn, spawnSync } from 'node:child_process';
import { constants } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

process.stderr.write('Building the API and the dashboard (a minute or two the first time)…\n');
const started = Date.now();
const build = spawnSync(
  'turbo',
  [
    'run',
    'build',
    '--filter=@boxoffice/api',
    '--filter=@boxoffice/dashboard',
    '--output-logs=errors-only',
  ],
  {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1' },
  },
);
if (build.status !== 0) {
  process.stderr.write(`${build.stdout ?? ''}${build.stderr ?? ''}`);
  process.stderr.write(`The build failed${build.error ? `: ${build.error.message}` : ''}.\n`);
  process.exit(build.status ?? 1);
}
process.stderr.write(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`);

// The server runs in a process group of its own: Ctrl-C (SIGINT to the terminal's foreground
// group) reaches this script and pnpm, not the server's embedded PostgreSQL, which would stop at
// once, in the middle of the server's drain. This script passes the signal on, as it does SIGTERM
// or SIGHUP (an IDE's stop button, a closed terminal), and exits as the server does: 0 after a
// clean stop. (`pnpm start` execs Node's own binary on this script, not `node_modules/.bin/node`,
// a shell script: a shell in between dies of the Ctrl-C once this script has exited, even with 0,
// and pnpm reports that as a failure.)
const server = spawn(process.execPath, ['dist/main.js'], {
  cwd: join(root, 'apps/api'),
  stdio: 'inherit',
  detached: true,
});
const running = () => server.exitCode === null && server.signalCode === null;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (running()) server.kill(signal);
  });
}
// This script stopping any other way takes the server with it.
process.on('exit', () => {
  if (running()) server.kill('SIGTERM');
});
// Killed by a signal: the shell's convention, 128 + its number.
server.on('exit', (code, signal) =>
  process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0)),
);
