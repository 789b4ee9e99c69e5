// Type-checks TypeScript sources (README and reference samples) as files of a new project would
// be: resolved like the files of the package whose tsconfig is given (so `@boxoffice/sdk` is the
// SDK as that package sees it), but with what `tsc --init` (TypeScript 5.9) writes that matters
// to a sample: no Node types (so no `process`), the default libraries (with the DOM's `console`),
// exact optional properties. Nothing is written to disk.
import path from 'node:path';
import ts from 'typescript';

/**
 * @param {string} tsconfigPath the tsconfig.json of the package the sources are files of
 * @param {Map<string, string>} sources absolute file name → source text
 * @param {{ compilerOptions?: Record<string, unknown>, files?: Map<string, string> }} [project]
 *   other compiler options, as a tsconfig.json writes them; other files the compiler may read
 *   (a `package.json` that makes a directory a project of its own)
 * @returns {(file: string) => string} the formatted diagnostics of one of the sources ('' if none)
 */
export function checkAsNewProject(tsconfigPath, sources, project = {}) {
  const config = ts.getParsedCommandLineOfConfigFile(
    tsconfigPath,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!config || config.errors.length > 0) {
    throw new Error(`cannot read ${tsconfigPath}: ${JSON.stringify(config?.errors ?? [])}`);
  }
  const other = ts.convertCompilerOptionsFromJson(
    project.compilerOptions ?? {},
    path.dirname(tsconfigPath),
  );
  if (other.errors.length > 0) {
    throw new Error(`invalid compiler options: ${JSON.stringify(other.errors)}`);
  }
  const options = {
    ...config.options,
    noEmit: true,
    types: [],
    lib: undefined,
    exactOptionalPropertyTypes: true,
    ...other.options,
  };
  const files = new Map([...(project.files ?? []), ...sources]);
  const dirs = new Set([...files.keys()].map((file) => path.dirname(file)));
  const real = ts.createCompilerHost(options);
  /** @type {ts.CompilerHost} */
  const host = {
    ...real,
    fileExists: (file) => files.has(file) || real.fileExists(file),
    readFile: (file) => files.get(file) ?? real.readFile(file),
    directoryExists: (dir) => dirs.has(dir) || (real.directoryExists?.(dir) ?? false),
    getSourceFile: (file, language, ...rest) => {
      const text = sources.get(file);
      return text === undefined
        ? real.getSourceFile(file, language, ...rest)
        : ts.createSourceFile(file, text, language);
    },
  };
  const program = ts.createProgram([...sources.keys()], options, host);
  return (file) =>
    ts.formatDiagnostics(ts.getPreEmitDiagnostics(program, program.getSourceFile(file)), {
      getCanonicalFileName: (name) => name,
      getCurrentDirectory: () => ts.sys.getCurrentDirectory(),
      getNewLine: () => '\n',
    });
}
