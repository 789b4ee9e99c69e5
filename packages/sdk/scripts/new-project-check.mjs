// Type-checks TypeScript sources (README and reference samples) as files of a new project would
// be: resolved like the files of the package whose tsconfig is given (so `@boxoffice/sdk` is the
// SDK as that package sees it), but with what `tsc --init` (TypeScript 5.9) writes that matters
// to a sample: no Node types (so no `process`), the default libraries (with the DOM's `console`),
// exact optional properties. Nothing is written to disk.
import ts from 'typescript';

/**
 * @param {string} tsconfigPath the tsconfig.json of the package the sources are files of
 * @param {Map<string, string>} sources absolute file name → source text
 * @returns {(file: string) => string} the formatted diagnostics of one of the sources ('' if none)
 */
export function checkAsNewProject(tsconfigPath, sources) {
  const config = ts.getParsedCommandLineOfConfigFile(
    tsconfigPath,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!config || config.errors.length > 0) {
    throw new Error(`cannot read ${tsconfigPath}: ${JSON.stringify(config?.errors ?? [])}`);
  }
  const options = {
    ...config.options,
    noEmit: true,
    types: [],
    lib: undefined,
    exactOptionalPropertyTypes: true,
  };
  const real = ts.createCompilerHost(options);
  /** @type {ts.CompilerHost} */
  const host = {
    ...real,
    fileExists: (file) => sources.has(file) || real.fileExists(file),
    readFile: (file) => sources.get(file) ?? real.readFile(file),
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
