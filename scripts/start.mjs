// `pnpm start`: builds the API and the dashboard, saying only that it does (turbo's own output is
// shown when the build fails), then runs the API server in this terminal.
import { spawn, spawnSync } from 'node:child_process';
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

const server = spawn(process.execPath, ['dist/main.js'], {
  cwd: join(root, 'apps/api'),
  stdio: 'inherit',
});
// Ctrl-C reaches the server too (same process group); it stops itself, and this script with it.
// A plain SIGTERM or SIGHUP (an IDE's stop button) is passed on.
process.on('SIGINT', () => {});
for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
