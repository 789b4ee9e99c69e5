import { open } from 'node:fs/promises';
import { createInterface, type Interface } from 'node:readline';
import { APIError, Boxoffice, PermissionDeniedError } from '@boxoffice/sdk';
import { isSetupRefusal, runCommand } from '@boxoffice/example-shared';
import { parseDoorArgs, USAGE, type DoorOptions } from './args';
import { describeError, Door, DoorStopped } from './door';
import { formatResult, Tally } from './report';

const out = (line: string) => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`${line}\n`);

/** Reads the event once before the first scan, so a wrong key or event stops the door at once. */
async function describeEvent(client: Boxoffice, options: DoorOptions): Promise<string> {
  try {
    const event = await client.events.get(options.eventId);
    if (event.status !== 'published') note(`warning: ${event.id} is ${event.status}`);
    return `${event.name} (${event.id})`;
  } catch (error) {
    // A door key may hold checkins:write alone; and an offline start should still take scans.
    if (error instanceof PermissionDeniedError) return options.eventId;
    if (isSetupRefusal(error)) throw new DoorStopped(undefined, error);
    if (error instanceof APIError) {
      note(`warning: could not read the event (${describeError(error)}); scanning anyway`);
      return options.eventId;
    }
    throw error;
  }
}

/** The SDK holds a scan while the key's write window is used up; say so rather than look stuck. */
function announceRateLimitWait(client: Boxoffice): void {
  const { remaining, resetAt, limit } = client.rateLimit('write');
  const wait = resetAt === undefined ? 0 : Math.ceil((resetAt - Date.now()) / 1000);
  if (remaining !== undefined && remaining <= 0 && wait > 0) {
    note(`rate limit: ${limit ?? '?'} scans per minute used up, next scan in ${wait} s`);
  }
}

interface Input {
  /** The lines, read from here on (call once, right before iterating: earlier lines are lost). */
  lines(): AsyncIterable<string>;
  close(): Promise<void>;
}

/** Opens the file now, so that a wrong path fails before any request; reads it later. */
async function openInput(options: DoorOptions): Promise<Input> {
  let reader: Interface | undefined;
  if (options.file) {
    const file = await open(options.file);
    return {
      lines: () => (reader = file.readLines()),
      async close() {
        reader?.close();
        await file.close();
      },
    };
  }
  return {
    lines() {
      if (process.stdin.isTTY) note('Scan tickets (one code per line, Ctrl-D to finish):');
      return (reader = createInterface({ input: process.stdin, crlfDelay: Infinity }));
    },
    close() {
      reader?.close();
      return Promise.resolve();
    },
  };
}

async function main(options: DoorOptions): Promise<number> {
  // The key and the server come from BOXOFFICE_API_KEY and BOXOFFICE_BASE_URL, which the SDK reads.
  const client = new Boxoffice({ timeout: options.timeoutMs, maxRetries: 4 });
  const tally = new Tally();
  let input: Input | undefined;
  const interrupt = new AbortController();
  process.once('SIGINT', () => {
    // Let the scan in flight finish and print the summary; a second Ctrl-C kills.
    interrupt.abort();
    void input?.close();
  });

  try {
    input = await openInput(options);
    const event = await describeEvent(client, options);
    note(
      `${options.direction === 'entry' ? 'Entry' : 'Exit'} scans for ${event} at gate ` +
        `"${options.gate}", device "${options.deviceId}", batch "${options.batch}"`,
    );
    const door = new Door(client, options, (message) => note(`warning: ${message}`));
    let line = 0;
    for await (const raw of input.lines()) {
      if (interrupt.signal.aborted) break;
      line += 1;
      const code = raw.trim();
      if (code === '' || code.startsWith('#')) continue;
      announceRateLimitWait(client);
      const result = await door.scan(line, code);
      tally.add(result);
      out(formatResult(result));
    }
  } catch (error) {
    if (!(error instanceof DoorStopped)) throw error;
    const where = error.line === undefined ? '' : ` at line ${error.line}`;
    if (tally.scans > 0) out(tally.summary(options.direction));
    note(`Stopped${where}: ${error.message}`);
    return 1;
  } finally {
    await input?.close();
  }
  out('');
  out(tally.summary(options.direction));
  return 0;
}

const startedAt = new Date();
runCommand({ usage: USAGE, parse: (argv) => parseDoorArgs(argv, startedAt), run: main });
