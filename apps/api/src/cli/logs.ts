import { latestRequestLogs } from '../modules/request-logs/request-log.service';
import { integerFlag, UsageError, type Command } from './args';
import { organisationCommand } from './organisation-command';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since 90m`: the moment that long ago. */
function sinceOf(value: string, usage: string): Date {
  const match = /^(\d{1,6})([smhd])$/.exec(value.trim());
  if (!match) {
    throw new UsageError('--since must be a number and a unit: 30s, 15m, 1h or 7d', usage);
  }
  const [, amount = '', unit = ''] = match;
  return new Date(Date.now() - Number(amount) * (UNITS[unit] ?? 0));
}

/** `--status 5xx` (a class) or `--status 404` (one status). */
function statusOf(
  value: string,
  usage: string,
): { status_class?: '2xx' | '3xx' | '4xx' | '5xx'; status?: number } {
  const text = value.trim().toLowerCase();
  if (/^[2-5]xx$/.test(text)) return { status_class: text as '2xx' | '3xx' | '4xx' | '5xx' };
  if (/^[1-5]\d\d$/.test(text)) return { status: Number(text) };
  throw new UsageError('--status must be a class (2xx, 3xx, 4xx, 5xx) or a status (404)', usage);
}

export const logCommands: Command[] = [
  organisationCommand({
    usage: 'logs --org <org_id> [--test] [--status 5xx|404] [--since 1h] [--limit N]',
    summary:
      "Print an organisation's latest recorded API requests, newest first, one JSON line each (bodies of failed ones included); --test: its test environment's",
    flags: ['status', 'since', 'limit'],
    lines: true,
    prepare(parsed) {
      const status =
        parsed.flags.status === undefined ? {} : statusOf(parsed.flags.status, parsed.usage);
      const since =
        parsed.flags.since === undefined ? undefined : sinceOf(parsed.flags.since, parsed.usage);
      const limit = integerFlag(parsed, 'limit', { min: 1, max: 1000 }) ?? 100;
      return (ctx) => latestRequestLogs(ctx, { ...status, since, limit });
    },
  }),
];
