import { migrate } from '../db/orm';
import { defineCommand, type Command } from './args';

export const migrateCommands: Command[] = [
  defineCommand({
    usage: 'migrate',
    summary: 'Apply pending database migrations',
    migrates: true,
    prepare: () => async (orm) => ({ applied: await migrate(orm) }),
  }),
];
