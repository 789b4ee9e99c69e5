/**
 * Type-checks `sources` (absolute file name → text) as files of a new project resolved like the
 * package of `tsconfigPath`; returns the formatted diagnostics of one of them ('' if none).
 */
export function checkAsNewProject(
  tsconfigPath: string,
  sources: Map<string, string>,
): (file: string) => string;
