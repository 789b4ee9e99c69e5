import { migrate } from '../db/orm';
import { parseCommandArgs, type Command } from './args';

const usage = 'migrate';

export const migrateCommands: Command[] = [
  {
    path: ['migrate'],
    usage,
    summary: 'Apply pending database migrations',
    migrates: true,
    parse(argv) {
      parseCommandArgs(argv, { usage });
      return async (orm) => ({ applied: await migrate(orm) });
    },
  },
];
