import { randomInt } from 'node:crypto';
import { Boxoffice, type ClientOptions } from '../src/client';
import type { Logger, LogLevel } from '../src/internal/log';
import { FakeClock } from './fake-clock';
import { ScriptedFetch, type Reply } from './scripted-fetch';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A key in the server's format, made up for the test run (no key is written into the tests). */
export const testKey = (): string =>
  `bxo_live_${Array.from({ length: 40 }, () => BASE62[randomInt(BASE62.length)]).join('')}`;

export const TEST_KEY = testKey();
export const TEST_BASE_URL = 'https://api.boxoffice.test/api/v1';

export interface LogLine {
  level: Exclude<LogLevel, 'off'>;
  message: string;
  rest?: unknown[];
}

/** A logger that keeps every line it is given. */
export function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  // Keeps what else is logged with the message (e.g. the headers of a request), to check for secrets.
  const at =
    (level: LogLine['level']) =>
    (message: string, ...rest: unknown[]) =>
      lines.push(rest.length > 0 ? { level, message, rest } : { level, message });
  return { lines, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

/**
 * A client on a fake clock and a scripted `fetch`, with jitter off (`random() = 0`) unless told
 * otherwise. `replies` are queued in order.
 */
export function harness(
  options: ClientOptions & { auto?: boolean; fallback?: Reply } = {},
  ...replies: Reply[]
) {
  const { auto, fallback, ...clientOptions } = options;
  // A fake clock given is the test's own; any other clock replaces the fake one in the client only.
  const clock = options.clock instanceof FakeClock ? options.clock : new FakeClock({ auto });
  const script = new ScriptedFetch({ fallback, now: () => clock.now() }).reply(...replies);
  const logger = recordingLogger();
  const client = new Boxoffice({
    apiKey: TEST_KEY,
    baseURL: TEST_BASE_URL,
    fetch: script.fetch,
    clock,
    random: () => 0,
    logger,
    logLevel: 'debug',
    ...clientOptions,
  });
  return { client, clock, script, logger, start: clock.now() };
}
