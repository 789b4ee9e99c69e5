// Shared by the container checks (verify.mjs, rolling-deploy.mjs): podman and psql as promises,
// and a free local port.
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';

export const run = promisify(execFile);

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** podman's stdout. */
export async function podman(...args) {
  const { stdout } = await run('podman', args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/**
 * Runs SQL on the server of `url` and gives its output (unaligned, tuples only). The statement
 * goes on psql's stdin: a list of ids can outgrow what one argument may hold.
 */
export function psql(sql, url) {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'psql',
      [url.toString(), '-v', 'ON_ERROR_STOP=1', '-Atq', '-f', '-'],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => (error ? reject(error) : resolve(stdout.trim())),
    );
    child.stdin.end(sql);
  });
}

/** A local TCP port with nothing listening on it (the kernel's pick, released at once). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
