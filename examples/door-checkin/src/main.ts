import { open } from 'node:fs/promises';
import { createInterface, type Interface } from 'node:readline';
import { APIConnectionError, APIError, Boxoffice, PermissionDeniedError } from '@boxoffice/sdk';
import { openDoor } from '@boxoffice/sdk/doors';
import { isSetupRefusal, runCommand } from '@boxoffice/example-shared';
import { parseDoorArgs, USAGE, type DoorOptions } from './args';
import { FileDoorStore } from './file-store';
import { formatConflict, formatScan, Tally } from './report';

const out = (line: string) => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`${line}\n`);

/** A failure that is not about one ticket (bad key, free plan, missing scope, unknown event). */
class DoorStopped extends Error {
  override name = 'DoorStopped';
  constructor(readonly error: unknown) {
    super(describeError(error));
  }
}

/** Why a request got no answer, as specific as it says: `connect ECONNREFUSED 127.0.0.1:3000`. */
function networkCause(error: APIConnectionError): string {
  // fetch wraps the socket's error ("connect ECONNREFUSED …") in a bare "fetch failed".
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const root = cause?.cause instanceof Error ? cause.cause : cause;
  return root?.message ?? error.message;
}

function describeError(error: unknown): string {
  if (error instanceof APIConnectionError) return `network: ${networkCause(error)}`;
  if (error instanceof APIError) {
    return `${error.message}${error.requestId ? ` (request ${error.requestId})` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Reads the event once before anything else, so a wrong key or event stops the door at once. */
async function describeEvent(client: Boxoffice, options: DoorOptions): Promise<string> {
  try {
    const event = await client.events.get(options.eventId);
    if (event.status !== 'published') note(`warning: ${event.id} is ${event.status}`);
    return `${event.name} (${event.id})`;
  } catch (error) {
    if (error instanceof PermissionDeniedError) return options.eventId;
    if (isSetupRefusal(error)) throw new DoorStopped(error);
    // Offline: the door may still scan from what it stored last time.
    if (error instanceof APIError) return options.eventId;
    throw error;
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
  const client = new Boxoffice({ timeout: options.timeoutMs });
  const store = await FileDoorStore.open(options.dataDir);
  const door = openDoor(client, {
    eventId: options.eventId,
    gate: options.gate,
    deviceId: options.deviceId,
    store,
    refreshIntervalMs: options.refreshMs,
  });
  const tally = new Tally();
  /** The input line of each scan of this run, by its idempotency key. */
  const lines = new Map<string, number>();
  let offline = false;
  let sent = 0;
  door.on('conflict', (conflict) => {
    tally.conflicts += 1;
    out(formatConflict(conflict, lines.get(conflict.scan.idempotency_key)));
  });
  door.on('flushed', ({ acknowledged }) => (sent += acknowledged));
  door.on('offline', ({ error }) => {
    offline = true;
    const why = error instanceof APIConnectionError ? networkCause(error) : describeError(error);
    note(`network: no answer from the server (${why}); scanning goes on`);
  });
  door.on('online', () => {
    if (offline) note('network: the server answers again; sending the check-ins kept meanwhile');
    offline = false;
  });
  door.on('error', ({ error, during, fatal }) => {
    if (fatal && during === 'flush') {
      note(`Stopped sending check-ins: ${describeError(error)}; they stay in ${options.dataDir}`);
    }
  });

  let input: Input | undefined;
  const interrupt = new AbortController();
  process.once('SIGINT', () => {
    // Let the scan in flight finish, send what can be sent and print the summary.
    interrupt.abort();
    void input?.close();
  });

  try {
    input = await openInput(options);
    const event = await describeEvent(client, options);
    const loaded = await door.load().catch((error: unknown) => {
      throw new DoorStopped(error);
    });
    const copy = loaded.downloaded
      ? `${loaded.tickets} tickets downloaded`
      : `${loaded.tickets} tickets restored from ${options.dataDir}` +
        (loaded.refreshed ? '' : ' (the server is out of reach: scanning from that copy)');
    const { resending: n } = loaded;
    const queued = n > 0 ? `, ${n} check-in${n === 1 ? '' : 's'} of an earlier run to send` : '';
    note(
      `${options.direction === 'entry' ? 'Entry' : 'Exit'} scans for ${event} at gate ` +
        `"${options.gate}", device "${options.deviceId}": ${copy}${queued}`,
    );
    let line = 0;
    for await (const raw of input.lines()) {
      if (interrupt.signal.aborted) break;
      line += 1;
      const code = raw.trim();
      if (code === '' || code.startsWith('#')) continue;
      const outcome = await door.scan(code, { direction: options.direction });
      if (outcome.scan) lines.set(outcome.scan.idempotency_key, line);
      tally.add(outcome.result);
      out(formatScan(line, outcome));
    }
  } catch (error) {
    await door.close({ flush: false });
    await store.close();
    if (!(error instanceof DoorStopped)) throw error;
    if (tally.scans > 0) out(tally.summary(options.direction));
    note(`Stopped: ${error.message}`);
    return 1;
  } finally {
    await input?.close();
  }
  // A last try at sending; what the server did not answer stays in the store for the next run.
  await door.close();
  await store.close();
  out('');
  out(tally.summary(options.direction));
  out(
    door.pending === 0
      ? `check-ins sent: ${sent}, none waiting`
      : `check-ins sent: ${sent}; ${door.pending} not sent yet, kept in ${options.dataDir}: ` +
          'the next run with the same --data sends them',
  );
  return 0;
}

runCommand({ usage: USAGE, parse: parseDoorArgs, run: main });
