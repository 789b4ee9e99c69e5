// Until @boxoffice/sdk is on npm: builds it and packs it into `packages/tarballs/`, as it would be
// published (it has no runtime dependencies), then prints the `npm install` that puts it in
// another project.
//
//   pnpm pack:sdk
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const out = join(root, 'packages', 'tarballs');

function run(command, args, cwd = root) {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    throw new Error(`${command} ${args.join(' ')} failed`);
  }
}

try {
  run('turbo', ['run', 'build', '--filter=@boxoffice/sdk', '--output-logs=errors-only']);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  run('pnpm', ['pack', '--pack-destination', out], join(root, 'packages', 'sdk'));
  const files = readdirSync(out)
    .filter((name) => name.endsWith('.tgz'))
    .map((name) => join(out, name));
  process.stdout.write(
    [
      `Packed into ${out}:`,
      ...files.map((file) => `  ${file.slice(out.length + 1)}`),
      '',
      'Install it in your project:',
      `  npm install ${files.join(' ')}`,
      '',
    ].join('\n'),
  );
} catch (error) {
  process.stderr.write(`pack:sdk: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
