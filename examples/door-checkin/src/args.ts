import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { parseOptions, UsageError } from '@boxoffice/example-shared';

export const USAGE = `Usage: door-checkin --event <evt_…> --gate <name> [options] [< codes.txt]

Checks tickets in at a door: downloads the event's tickets, answers each scanned code (one per
input line) from that copy, without waiting on the network, and sends the check-ins in batches in
the background. Scanning goes on while the network is down; what is not sent yet is kept in the
data directory and sent when the server answers again (or by the next run).

Options:
  --event <id>      the event at this door (required)
  --gate <name>     the gate or door the scans happen at (required)
  --file <path>     read codes from this file instead of stdin
  --exit            record exits instead of entries
  --device <id>     this scanner's id (default: the host name)
  --data <dir>      where the door keeps its copy of the event and its scans
                    (default: a directory per event and device in the system's temp directory)
  --refresh <s>     seconds between fetches of other doors' admissions (default 30; 0: never)
  --timeout <s>     seconds one API attempt may take (default 10)
  -h, --help        show this help

Environment: BOXOFFICE_API_KEY (scopes read and checkins:write), BOXOFFICE_BASE_URL.`;

export interface DoorOptions {
  eventId: string;
  gate: string;
  deviceId: string;
  direction: 'entry' | 'exit';
  /** Undefined: read stdin. */
  file: string | undefined;
  /** The directory of the door's store. */
  dataDir: string;
  refreshMs: number;
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

function seconds(name: string, value: string, zero: boolean): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0 || (number === 0 && !zero)) {
    throw new UsageError(
      `--${name} must be a ${zero ? 'non-negative' : 'positive'} number of seconds`,
    );
  }
  return Math.round(number * 1000);
}

export function parseDoorArgs(argv: string[]): DoorOptions | 'help' {
  const values = parseOptions(argv, {
    event: { type: 'string' },
    gate: { type: 'string' },
    file: { type: 'string' },
    exit: { type: 'boolean', default: false },
    device: { type: 'string' },
    data: { type: 'string' },
    refresh: { type: 'string', default: '30' },
    timeout: { type: 'string', default: '10' },
  });
  if (values.help) return 'help';
  if (!values.event?.startsWith('evt_')) throw new UsageError('--event evt_… is required');
  if (values.gate === undefined) throw new UsageError('--gate is required');
  const deviceId = label('device', values.device ?? hostname());
  const fallbackDir = path.join(
    tmpdir(),
    `boxoffice-door-${values.event}-${deviceId}`.replace(/[^\w.-]/g, '_'),
  );
  return {
    eventId: values.event,
    gate: label('gate', values.gate),
    deviceId,
    direction: values.exit ? 'exit' : 'entry',
    file: values.file === undefined ? undefined : path.resolve(values.file),
    dataDir: path.resolve(values.data ?? fallbackDir),
    refreshMs: seconds('refresh', values.refresh, true),
    timeoutMs: seconds('timeout', values.timeout, false),
  };
}
