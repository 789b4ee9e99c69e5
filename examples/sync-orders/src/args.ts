import path from 'node:path';
import { parseOptions, UsageError } from '@boxoffice/example-shared';

export const USAGE = `Usage: sync-orders [--event <evt_…>] [--since <ISO time>] [--out orders.csv]

Exports orders to CSV: every order of one event, or of all events.

Options:
  --event <id>       only this event's orders (default: all events)
  --since <time>     only orders created or changed at or after this time (ISO 8601 with Z or an
                     offset, e.g. 2026-06-01T00:00:00Z): an incremental sync. The run ends by
                     printing the value to pass next time.
  --out <path>       write the CSV to this file (default: stdout)
  --no-progress      no progress bar on stderr
  -h, --help         show this help

Environment: BOXOFFICE_API_KEY (scope read), BOXOFFICE_BASE_URL.`;

export interface SyncOptions {
  eventId: string | undefined;
  /** Normalised to UTC. */
  since: string | undefined;
  out: string | undefined;
  progress: boolean;
}

/** ISO 8601 with an explicit zone (the API refuses local times), or a bare date taken as UTC. */
function parseSince(value: string): string {
  const zoned = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/i;
  const time = Date.parse(value);
  if (!zoned.test(value) || Number.isNaN(time)) {
    throw new UsageError(`--since must be an ISO 8601 time with Z or an offset, not "${value}"`);
  }
  return new Date(time).toISOString();
}

export function parseSyncArgs(argv: string[]): SyncOptions | 'help' {
  const values = parseOptions(argv, {
    event: { type: 'string' },
    since: { type: 'string' },
    out: { type: 'string' },
    'no-progress': { type: 'boolean', default: false },
  });
  if (values.help) return 'help';
  if (values.event !== undefined && !values.event.startsWith('evt_')) {
    throw new UsageError('--event must be an event id (evt_…)');
  }
  return {
    eventId: values.event,
    since: values.since === undefined ? undefined : parseSince(values.since),
    out: values.out === undefined ? undefined : path.resolve(values.out),
    progress: !values['no-progress'],
  };
}
