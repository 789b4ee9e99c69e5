import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import {
  AuthenticationError,
  type APIError,
  BoxofficeError,
  NotFoundError,
  PermissionDeniedError,
  PlanRequiredError,
} from '@boxoffice/sdk';

/** A wrong command line: the program prints what is wrong and its usage, and exits with 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const HELP = { help: { type: 'boolean', short: 'h', default: false } } as const;

/** The command line's options, and `-h`/`--help`; no positional arguments. */
export function parseOptions<const T extends ParseArgsOptionsConfig>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options: { ...options, ...HELP }, strict: true }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * An answer no retry changes: the key is wrong or lacks the scope, the plan has no API access, or
 * the id names nothing. Met on a first read, it stops the program before it starts its work.
 */
export const isSetupRefusal = (error: unknown): error is APIError =>
  error instanceof AuthenticationError ||
  error instanceof PlanRequiredError ||
  error instanceof PermissionDeniedError ||
  error instanceof NotFoundError;

export interface Command<Options> {
  usage: string;
  /** The options, or `'help'`; a `UsageError` for a wrong command line. */
  parse(argv: string[]): Options | 'help';
  /** The program; the number it ends with is the exit code. */
  run(options: Options): Promise<number>;
}

const note = (line: string) => process.stderr.write(`${line}\n`);

const isSystemError = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';

async function main<Options>(command: Command<Options>, argv: string[]): Promise<number> {
  let options: Options | 'help';
  try {
    options = command.parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    note(`${error.message}\n\n${command.usage}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(`${command.usage}\n`);
    return 0;
  }
  return command.run(options);
}

/** Runs `command` on this process's arguments and sets the exit code it ends with. */
export function runCommand<Options>(command: Command<Options>): void {
  main(command, process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // A setup problem (no API key, a file that cannot be read or written, a port in use): the
      // message says what to do.
      if (error instanceof BoxofficeError || isSystemError(error)) note(error.message);
      else console.error(error);
      process.exitCode = 1;
    },
  );
}
