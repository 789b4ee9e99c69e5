// The contract's schemas as TypeScript types, computed by the compiler from its sources: what the
// SDK's plain types (packages/sdk/scripts/generate-types.mjs) and the OpenAPI document's field
// descriptions (apps/api/scripts/generate-field-docs.mjs) are generated from; and how those two
// write what they generate.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
export const ts = require('typescript');
export const contractSrc = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

/**
 * `[alias, schema export, side]` → each alias's type: `z.output` (what the API returns) or
 * `z.input` (what it accepts) of the export. Returns the checker and the types by alias.
 */
export function contractTypes(wanted) {
  const entry = join(contractSrc, '__contract_types__.ts');
  const source = [
    "import type { z } from 'zod';",
    "import type * as C from './index';",
    ...wanted.map(([name, schema, side]) => `export type ${name} = z.${side}<typeof C.${schema}>;`),
  ].join('\n');
  const options = {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) =>
    resolve(name) === entry
      ? ts.createSourceFile(name, source, version)
      : getSourceFile(name, version);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => resolve(name) === entry || fileExists(name);
  const program = ts.createProgram([entry], options, host);
  const checker = program.getTypeChecker();
  const aliases = new Map();
  for (const statement of program.getSourceFile(entry).statements) {
    if (ts.isTypeAliasDeclaration(statement)) {
      aliases.set(statement.name.text, checker.getTypeAtLocation(statement.name));
    }
  }
  return { checker, aliases };
}

/** Writes a generator's `text` to `target` (a file URL), formatted as Prettier is set up for it. */
export async function writeGenerated(target, text) {
  const path = fileURLToPath(target);
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(path)) ?? {};
  writeFileSync(path, await prettier.format(text, { ...config, filepath: path }));
  console.log(`wrote ${path}`);
}
