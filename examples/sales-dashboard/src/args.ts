import { parseOptions, UsageError } from '@boxoffice/example-shared';

export const USAGE = `Usage: sales-dashboard [--event <evt_…>] [--port 8080] [--host 127.0.0.1]

Serves a sales and check-in dashboard: for one event, or a list of published events to pick from.
The page refreshes itself every 30 s; the API key stays in this process.

Options:
  --event <id>    show only this event (default: a picker of published events)
  --port <n>      port to listen on (default 8080; 0 picks a free one)
  --host <addr>   interface to listen on (default 127.0.0.1; 0.0.0.0 for every interface)
  -h, --help      show this help

Environment: BOXOFFICE_API_KEY (scope read), BOXOFFICE_BASE_URL.`;

export interface DashboardOptions {
  eventId: string | undefined;
  port: number;
  host: string;
}

export function parseDashboardArgs(argv: string[]): DashboardOptions | 'help' {
  const values = parseOptions(argv, {
    event: { type: 'string' },
    port: { type: 'string', default: '8080' },
    host: { type: 'string', default: '127.0.0.1' },
  });
  if (values.help) return 'help';
  if (values.event !== undefined && !isEventId(values.event)) {
    throw new UsageError('--event must be an event id (evt_…)');
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError('--port must be an integer between 0 and 65535');
  }
  return { eventId: values.event, port, host: values.host };
}

/** The shape of an event id: anything else in a URL is a 404 without asking the API. */
export function isEventId(value: string): boolean {
  return /^evt_[A-Za-z0-9]{1,64}$/.test(value);
}
