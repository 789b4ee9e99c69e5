import path from 'node:path';
import { parseOptions, UsageError } from '@boxoffice/example-shared';

export const USAGE = `Usage: export-sync [--db tickets.db] [--event <evt_…>] [--wait <seconds>]

Copies tickets into a local SQLite database: the first run with an export of the whole list (one
file, one snapshot), each later run with only the tickets changed since the last one.

Options:
  --db <path>        the SQLite database (default: tickets.db); made on the first run
  --event <id>       only this event's tickets (default: all events); fixed by the first run
  --wait <seconds>   how long the first run waits for its export (default: 600)
  -h, --help         show this help

Environment: BOXOFFICE_API_KEY (scope read), BOXOFFICE_BASE_URL.`;

export interface ExportSyncOptions {
  db: string;
  eventId: string | undefined;
  waitMs: number;
}

export function parseExportSyncArgs(argv: string[]): ExportSyncOptions | 'help' {
  const values = parseOptions(argv, {
    db: { type: 'string', default: 'tickets.db' },
    event: { type: 'string' },
    wait: { type: 'string', default: '600' },
  });
  if (values.help) return 'help';
  if (values.event !== undefined && !values.event.startsWith('evt_')) {
    throw new UsageError('--event must be an event id (evt_…)');
  }
  const wait = Number(values.wait);
  if (!/^\d+$/.test(values.wait) || wait < 1) {
    throw new UsageError(
      `--wait must be a whole number of seconds, 1 or more, not "${values.wait}"`,
    );
  }
  return { db: path.resolve(values.db), eventId: values.event, waitMs: wait * 1000 };
}
