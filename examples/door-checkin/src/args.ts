import { hostname } from 'node:os';
import path from 'node:path';
import { parseOptions, UsageError } from '@boxoffice/example-shared';

export const USAGE = `Usage: door-checkin --event <evt_…> --gate <name> [options] [< codes.txt]

Checks in one scanned ticket code per input line and prints one result line per scan.

Options:
  --event <id>      the event at this door (required)
  --gate <name>     the gate or door the scans happen at (required)
  --file <path>     read codes from this file instead of stdin
  --exit            record exits instead of entries
  --device <id>     this scanner's id (default: the host name)
  --batch <name>    names this run of scans for idempotency keys (default: the file's path;
                    for stdin a fresh name per run)
  --no-names        do not look up attendee names (saves read requests)
  --timeout <s>     seconds one API attempt may take before it is retried (default 10)
  -h, --help        show this help

Environment: BOXOFFICE_API_KEY (scopes checkins:write and read), BOXOFFICE_BASE_URL.`;

export interface DoorOptions {
  eventId: string;
  gate: string;
  deviceId: string;
  direction: 'entry' | 'exit';
  /** Undefined: read stdin. */
  file: string | undefined;
  batch: string;
  lookupNames: boolean;
  timeoutMs: number;
}

/** The API's limits for `gate` and `device_id`: checked here so that no scan fails on them. */
function label(name: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed.length < 1 || trimmed.length > 100) {
    throw new UsageError(`--${name} must be 1 to 100 characters`);
  }
  return trimmed;
}

export function parseDoorArgs(argv: string[], startedAt: Date): DoorOptions | 'help' {
  const values = parseOptions(argv, {
    event: { type: 'string' },
    gate: { type: 'string' },
    file: { type: 'string' },
    exit: { type: 'boolean', default: false },
    device: { type: 'string' },
    batch: { type: 'string' },
    'no-names': { type: 'boolean', default: false },
    timeout: { type: 'string', default: '10' },
  });
  if (values.help) return 'help';
  if (!values.event?.startsWith('evt_')) throw new UsageError('--event evt_… is required');
  if (values.gate === undefined) throw new UsageError('--gate is required');
  const timeout = Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw new UsageError('--timeout must be a positive number of seconds');
  }
  const file = values.file === undefined ? undefined : path.resolve(values.file);
  return {
    eventId: values.event,
    gate: label('gate', values.gate),
    deviceId: label('device', values.device ?? hostname()),
    direction: values.exit ? 'exit' : 'entry',
    file,
    // A file is the same batch every time it is rerun; live stdin is a new one each run (pass
    // --batch to replay a saved stream safely).
    batch: values.batch ?? file ?? `stdin@${startedAt.toISOString()}`,
    lookupNames: !values['no-names'],
    timeoutMs: Math.round(timeout * 1000),
  };
}
