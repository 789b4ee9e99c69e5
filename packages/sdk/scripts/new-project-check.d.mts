/**
 * Type-checks `sources` (absolute file name → text) as files of a new project resolved like the
 * package of `tsconfigPath`; returns the formatted diagnostics of one of them ('' if none).
 * `project` gives other compiler options (as a tsconfig.json writes them) and other files the
 * compiler may read, such as a `package.json` that makes a directory a project of its own.
 */
export function checkAsNewProject(
  tsconfigPath: string,
  sources: Map<string, string>,
  project?: { compilerOptions?: Record<string, unknown>; files?: Map<string, string> },
): (file: string) => string;
