import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const readme = await readFile(path.join(packageRoot, 'README.md'), 'utf8');

/** The first TypeScript block after `heading`. */
function example(heading: string): string {
  const section = readme.slice(readme.indexOf(`\n${heading}\n`));
  const match = /^```ts\n([\s\S]*?)^```$/m.exec(section);
  if (!match) throw new Error(`no TypeScript example under ${heading}`);
  return match[1]!;
}

/**
 * The diagnostics of `source` as a file of a new project: the package's own resolution (so
 * `@boxoffice/sdk` is this source), with what `tsc --init` (TypeScript 5.9) writes that matters
 * here: no Node types, the default libraries, exact optional properties. Nothing is written.
 */
function typeCheck(source: string): string {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(packageRoot, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  expect(config?.errors ?? ['no tsconfig']).toEqual([]);
  const options: ts.CompilerOptions = {
    ...config!.options,
    noEmit: true,
    types: [],
    lib: undefined,
    exactOptionalPropertyTypes: true,
  };
  const file = path.join(packageRoot, '__readme__', 'usage.ts');
  const real = ts.createCompilerHost(options);
  const host: ts.CompilerHost = {
    ...real,
    fileExists: (name) => name === file || real.fileExists(name),
    readFile: (name) => (name === file ? source : real.readFile(name)),
    getSourceFile: (name, language, ...rest) =>
      name === file
        ? ts.createSourceFile(name, source, language)
        : real.getSourceFile(name, language, ...rest),
  };
  const program = ts.createProgram([file], options, host);
  return ts.formatDiagnostics(ts.getPreEmitDiagnostics(program, program.getSourceFile(file)), {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => packageRoot,
    getNewLine: () => '\n',
  });
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
