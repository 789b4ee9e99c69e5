import { parseArgs } from 'node:util';
import type { Orm } from '../db/orm';

/** Bad command-line input: the CLI prints it with the command's usage and exits with 2. */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
  }
}

export interface Command {
  /** The words that select the command, e.g. `['org', 'create']`. */
  path: readonly string[];
  /** The command line after the program name, e.g. `org create --name <name>`. */
  usage: string;
  summary: string;
  /** Applies migrations itself; every other command gets them applied first. */
  migrates?: boolean;
  /** Prints its result (a list) as JSON lines, one item a line, rather than one JSON document. */
  lines?: boolean;
  /** Checks the arguments before anything touches the database, and returns the work to do. */
  parse(argv: readonly string[]): (orm: Orm) => Promise<unknown>;
}

export interface ParsedArgs<F extends string, P extends string, S extends string = never> {
  flags: Partial<Record<F, string>>;
  /** Whether each switch (a flag without a value, `--test`) was given. */
  switches: Record<S, boolean>;
  args: Record<P, string>;
  /** The command's usage, for the errors of further checks. */
  usage: string;
}

/**
 * Parses `--flag value` options, `--switch` options (no value) and exactly the named positionals.
 * Anything else (an unknown flag, a flag without its value, a switch with one, a missing or extra
 * argument) is a UsageError.
 */
export function parseCommandArgs<
  const F extends string = never,
  const P extends string = never,
  const S extends string = never,
>(
  argv: readonly string[],
  spec: {
    usage: string;
    flags?: readonly F[];
    positionals?: readonly P[];
    switches?: readonly S[];
  },
): ParsedArgs<F, P, S> {
  const flags = spec.flags ?? [];
  const names = spec.positionals ?? [];
  const switchNames = spec.switches ?? [];
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...argv],
      options: Object.fromEntries<{ type: 'string' | 'boolean' }>([
        ...flags.map((flag) => [flag, { type: 'string' as const }] as const),
        ...switchNames.map((name) => [name, { type: 'boolean' as const }] as const),
      ]),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // Node's messages go on to explain `--` escaping; the first sentence is the useful part.
    const message =
      error instanceof Error ? (error.message.split('. ', 1)[0] ?? error.message) : String(error);
    throw new UsageError(message, spec.usage);
  }
  const { positionals } = parsed;
  if (positionals.length > names.length) {
    throw new UsageError(`unexpected argument '${positionals[names.length]}'`, spec.usage);
  }
  const args = Object.fromEntries(
    names.map((name, i) => {
      const value = positionals[i];
      if (value === undefined) throw new UsageError(`missing <${name}>`, spec.usage);
      return [name, value];
    }),
  ) as Record<P, string>;
  const values: Partial<Record<F, string>> = {};
  for (const flag of flags) {
    const value = parsed.values[flag];
    if (typeof value === 'string') values[flag] = value;
  }
  const switches = Object.fromEntries(
    switchNames.map((name) => [name, parsed.values[name] === true]),
  ) as Record<S, boolean>;
  return { flags: values, switches, args, usage: spec.usage };
}

/**
 * A command named by its usage line: the words before the first option or `<argument>` select it.
 * `prepare` gets the parsed `flags` and `positionals`, checks them, and returns the work to do.
 */
export function defineCommand<
  const F extends string = never,
  const P extends string = never,
  const S extends string = never,
>(spec: {
  usage: string;
  summary: string;
  flags?: readonly F[];
  positionals?: readonly P[];
  switches?: readonly S[];
  migrates?: boolean;
  lines?: boolean;
  prepare(parsed: ParsedArgs<F, P, S>): (orm: Orm) => Promise<unknown>;
}): Command {
  const words = spec.usage.split(' ');
  const named = words.findIndex((word) => !/^[a-z][a-z-]*$/.test(word));
  return {
    path: named === -1 ? words : words.slice(0, named),
    usage: spec.usage,
    summary: spec.summary,
    migrates: spec.migrates,
    lines: spec.lines,
    parse: (argv) => spec.prepare(parseCommandArgs(argv, spec)),
  };
}

/** The flag's value, trimmed; a UsageError when it is missing or blank. */
export function requireFlag<F extends string>(
  parsed: ParsedArgs<F, string, string>,
  flag: F,
): string {
  const value = parsed.flags[flag]?.trim();
  if (!value) throw new UsageError(`--${flag} is required`, parsed.usage);
  return value;
}

/** The flag's whole number within [min, max], if given; a UsageError naming the flag if not one. */
export function integerFlag<F extends string>(
  parsed: ParsedArgs<F, string, string>,
  flag: F,
  range: { min: number; max: number },
): number | undefined {
  const value = parsed.flags[flag];
  if (value === undefined) return undefined;
  const number = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(number) || number < range.min || number > range.max) {
    throw new UsageError(
      `--${flag} must be an integer between ${range.min} and ${range.max}`,
      parsed.usage,
    );
  }
  return number;
}
