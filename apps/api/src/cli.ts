import { loadConfig } from './config';
import { UsageError, type Command } from './cli/args';
import { openDatabase } from './cli/database';
import { keyCommands } from './cli/keys';
import { logCommands } from './cli/logs';
import { migrateCommands } from './cli/migrate';
import { orgCommands } from './cli/orgs';
import { secretCommands } from './cli/secrets';
import { seedCommands } from './cli/seed';
import { webhookCommands } from './cli/webhooks';
import { migrate } from './db/orm';
import { AppError } from './core/errors';

const PROGRAM = 'pnpm admin';

const commands: Command[] = [
  ...migrateCommands,
  ...orgCommands,
  ...keyCommands,
  ...webhookCommands,
  ...logCommands,
  ...secretCommands,
  ...seedCommands,
];

function usageText(): string {
  return [
    'Boxoffice operator CLI',
    '',
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    'Commands:',
    ...commands.flatMap((command) => [`  ${command.usage}`, `      ${command.summary}`]),
    '  help',
    '      Show this help',
    '',
    'Scopes are comma-separated: read, write, checkins:write.',
    'Results are JSON on stdout (logs: one JSON line per record). Errors are JSON on stderr, with exit code 1 (the command failed)',
    'or 2 (bad usage).',
    'The database is DATABASE_URL, or else the embedded PostgreSQL of `pnpm start` (.data/postgres).',
    '',
  ].join('\n');
}

/** The command named by the leading words of argv, and the arguments after them. */
function findCommand(argv: readonly string[]): { command: Command; rest: readonly string[] } {
  const matches = commands.filter((command) => command.path.every((word, i) => argv[i] === word));
  const command = matches.sort((a, b) => b.path.length - a.path.length)[0];
  if (command) return { command, rest: argv.slice(command.path.length) };
  const group = commands.filter((candidate) => candidate.path[0] === argv[0]);
  if (group.length > 0) {
    const known = group.map((candidate) => candidate.path.slice(1).join(' ')).join(', ');
    const given = argv[1] === undefined ? 'missing subcommand' : `unknown subcommand '${argv[1]}'`;
    throw new UsageError(`${given} for '${argv[0]}' (expected one of: ${known})`);
  }
  throw new UsageError(`unknown command '${argv[0]}'`);
}

const write = (stream: NodeJS.WriteStream, text: string): Promise<void> =>
  new Promise((resolve) => stream.write(text, () => resolve()));

const writeError = (body: Record<string, string>): Promise<void> =>
  write(process.stderr, `${JSON.stringify(body)}\n`);

async function run(argv: readonly string[]): Promise<number> {
  const [first] = argv;
  if (first === undefined || first === 'help' || argv.includes('--help') || argv.includes('-h')) {
    await write(process.stdout, usageText());
    return 0;
  }

  let command: Command;
  let task: ReturnType<Command['parse']>;
  try {
    const found = findCommand(argv);
    command = found.command;
    task = command.parse(found.rest);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    await writeError({
      error: error.message,
      usage: `${PROGRAM} ${error.usage ?? '<command> [options]'}`,
      help: `${PROGRAM} help`,
    });
    return 2;
  }

  try {
    const db = await openDatabase(loadConfig());
    try {
      // Cheap when there is nothing to do, and it means a fresh database just works.
      if (!command.migrates) await migrate(db.orm);
      const result = await task(db.orm);
      const text =
        command.lines && Array.isArray(result)
          ? result.map((item) => `${JSON.stringify(item)}\n`).join('')
          : `${JSON.stringify(result, null, 2)}\n`;
      await write(process.stdout, text);
      return 0;
    } finally {
      await db.close();
    }
  } catch (error) {
    if (error instanceof AppError) {
      await writeError({ error: error.message, code: error.code });
    } else {
      await writeError({ error: error instanceof Error ? error.message : String(error) });
    }
    return 1;
  }
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (error: unknown) => {
    await writeError({ error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  },
);
