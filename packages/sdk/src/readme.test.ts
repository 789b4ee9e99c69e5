import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkAsNewProject } from '../scripts/new-project-check.mjs';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const readme = await readFile(path.join(packageRoot, 'README.md'), 'utf8');
const rootReadme = await readFile(path.join(packageRoot, '..', '..', 'README.md'), 'utf8');

/** The first TypeScript block after `heading`. */
function example(heading: string, text = readme): string {
  const section = text.slice(text.indexOf(`\n${heading}\n`));
  const match = /^```ts\n([\s\S]*?)^```$/m.exec(section);
  if (!match) throw new Error(`no TypeScript example under ${heading}`);
  return match[1]!;
}

/** The file name the text before `heading`'s first TypeScript block tells the reader to use. */
function fileNameFor(heading: string, text = readme): string {
  const section = text.slice(text.indexOf(`\n${heading}\n`));
  const before = section.slice(0, section.indexOf('```ts'));
  const match = /\bsave\b[^`]*`([\w.-]+\.[cm]?ts)`/i.exec(before);
  if (!match) throw new Error(`no file name for the example under ${heading}`);
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

/**
 * The diagnostics of `source` as the file `fileName` of the project `npm init -y` and `tsc --init`
 * make: a CommonJS package (`"type": "commonjs"`), `module: nodenext`, `verbatimModuleSyntax`.
 */
function typeCheckInNpmInitProject(fileName: string, source: string): string {
  const dir = path.join(packageRoot, '__npm_init__');
  const file = path.join(dir, fileName);
  return checkAsNewProject(path.join(packageRoot, 'tsconfig.json'), new Map([[file, source]]), {
    files: new Map([
      [path.join(dir, 'package.json'), JSON.stringify({ name: 'app', type: 'commonjs' })],
    ]),
    compilerOptions: {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'esnext',
      verbatimModuleSyntax: true,
      paths: { '@boxoffice/sdk': [path.join(packageRoot, 'src', 'index.ts')] },
    },
  })(file);
}

/**
 * What a file's module format decides: top-level `await` or `import` in CommonJS (1309, 1286,
 * 1295), a CommonJS `require` of an ES module (1479), `await` the target cannot run (1378), an
 * unresolved import (2307). The SDK's sources resolve only with the bundler's rules, so other
 * diagnostics are the full check's business (below).
 */
const MODULE_FORMAT = /\bTS(1309|1286|1295|1479|1378|2307):/;

describe.each([
  ['the SDK README', readme, '## Usage'],
  ["the repository's README", rootReadme, '## SDK'],
])('%s', (_name, text, heading) => {
  it('names a file for its example that runs as it is in the project `npm init -y` makes', () => {
    const source = example(heading, text);
    const fileName = fileNameFor(heading, text);
    expect(typeCheckInNpmInitProject(fileName, source)).not.toMatch(MODULE_FORMAT);
    // The project is CommonJS: a plain `.ts` file there cannot hold the example.
    expect(typeCheckInNpmInitProject('index.ts', source)).toMatch(
      /TS1309: The current file is a CommonJS module and cannot use 'await' at the top level/,
    );
  }, 60_000);
});

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

  it('has a test mode example that type-checks in a new project', () => {
    const testing = example('## Testing with test mode');
    expect(testing).toContain('client.testHelpers.orders.create(');
    expect(typeCheck(testing)).toBe('');
  }, 60_000);

  it('has an exports example that type-checks in a new project, its rows typed', () => {
    const exports = example('## Exports');
    expect(exports).toContain('client.exports.rows(ready)');
    expect(typeCheck(exports)).toBe('');
    expect(typeCheck(exports.replace('ticket.code', 'ticket.total'))).toMatch(
      /Property 'total' does not exist on type 'Ticket'/,
    );
    expect(
      typeCheck(exports.replace("status: ['valid', 'checked_in']", "status: ['paid']")),
    ).toMatch(/Type '"paid"' is not assignable/);
  }, 60_000);

  it('has a door example that type-checks in a new project, and the DoorStore it describes', () => {
    const doors = example('## Doors: scanning offline');
    expect(doors).toContain("from '@boxoffice/sdk/doors'");
    expect(typeCheck(doors)).toBe('');
    expect(typeCheck(`${doors}\nawait door.scna('x');\n`)).toMatch(
      /Property 'scna' does not exist/,
    );
    // The interface shown is the one exported, both ways round.
    const store = example('### Where a door keeps its scans: `DoorStore`');
    const same = `${store}
import type { DoorStore as Exported } from '@boxoffice/sdk/doors';
export const a: Exported = {} as DoorStore;
export const b: DoorStore = {} as Exported;
`;
    expect(typeCheck(same)).toBe('');
  }, 60_000);

  it("the repository's README has an SDK example that type-checks in a new project", () => {
    expect(typeCheck(example('## SDK', rootReadme))).toBe('');
  }, 60_000);
});
