import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkAsNewProject } from '../scripts/new-project-check.mjs';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const readme = await readFile(path.join(packageRoot, 'README.md'), 'utf8');

/** The first TypeScript block after `heading`. */
function example(heading: string): string {
  const section = readme.slice(readme.indexOf(`\n${heading}\n`));
  const match = /^```ts\n([\s\S]*?)^```$/m.exec(section);
  if (!match) throw new Error(`no TypeScript example under ${heading}`);
  return match[1]!;
}

/** The diagnostics of `source` as a file of a new project using the SDK (nothing is written). */
function typeCheck(source: string): string {
  const file = path.join(packageRoot, '__readme__', 'usage.ts');
  return checkAsNewProject(
    path.join(packageRoot, 'tsconfig.json'),
    new Map([[file, source]]),
  )(file);
}

describe('README', () => {
  it('has a Usage example that type-checks in a new project, without Node types', () => {
    const usage = example('## Usage');
    expect(usage).toContain("from '@boxoffice/sdk'");
    expect(typeCheck(usage)).toBe('');
    // The check finds what a new project would: the SDK's methods, and no Node globals.
    expect(typeCheck(`${usage}\nawait client.events.lst();\n`)).toMatch(
      /Property 'lst' does not exist/,
    );
    expect(typeCheck(`${usage}\nconsole.log(process.env['HOME']);\n`)).toMatch(
      /Cannot find name 'process'/,
    );
  }, 60_000);
});
