import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REFERENCE_ASSETS_DIR, REFERENCE_BUNDLE } from '../src/http/reference-assets';

/**
 * The built server (`dist/`), for the tests that run what `pnpm start` and the image run: under
 * turbo the build ran before the tests (apps/api/turbo.json); a test file run alone builds it
 * when a source is newer than the output.
 */

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Built outputs and the sources they come from; the API bundles only its own `src/`, and copies
 * docs/api.md (the API reference's guides) and Scalar's browser files beside the bundle.
 */
const builds = [
  {
    dir: 'apps/api',
    outputs: [
      'dist/main.js',
      'dist/cli.js',
      'dist/webhook-thread.js',
      'dist/openapi.json',
      `dist/${REFERENCE_ASSETS_DIR}/${REFERENCE_BUNDLE}`,
    ],
    copies: ['docs/api.md'],
  },
  { dir: 'packages/contract', outputs: ['dist/index.js'], copies: [] },
  { dir: 'packages/dashboard-contract', outputs: ['dist/index.js'], copies: [] },
];

function newestSource(dir: string, copies: string[]): number {
  const src = path.join(dir, 'src');
  const files = readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
  const others = [path.join(dir, 'package.json'), ...copies.map((f) => path.join(repoRoot, f))];
  return Math.max(...[...files, ...others].map((f) => statSync(f).mtimeMs));
}

/** True when every output exists and is newer than its package's sources. */
function builtAndFresh(): boolean {
  return builds.every(({ dir, outputs, copies }) => {
    const root = path.join(repoRoot, dir);
    const files = outputs.map((output) => path.join(root, output));
    if (!files.every((file) => existsSync(file))) return false;
    const built = Math.min(...files.map((file) => statSync(file).mtimeMs));
    return built >= newestSource(root, copies);
  });
}

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function exec(
  file: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<Result> {
  return new Promise<Result>((resolve, reject) => {
    const child = spawn(file, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `pnpm <args>` at the repository's root; throws with its output when it fails. */
export async function pnpm(args: string[]): Promise<void> {
  const result = await exec('pnpm', args, { cwd: repoRoot });
  if (result.code !== 0) {
    throw new Error(`pnpm ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  }
}

/** Builds the API (and the contracts it bundles) unless the outputs are newer than the sources. */
export async function ensureBuilt(): Promise<void> {
  if (builtAndFresh()) return;
  await pnpm(['turbo', 'run', 'build', '--filter=@boxoffice/api', '--output-logs=errors-only']);
}
