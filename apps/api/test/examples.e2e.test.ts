import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TicketSchema } from '@boxoffice/contract';
import { freePort } from '../src/db/embedded';
import type { ExportJobs } from '../src/modules/exports/export-jobs';
import { createEndpoint } from '../src/modules/webhooks/webhook-endpoint.service';
import { placeOrder } from '../src/modules/orders/order.service';
import type { Ticket } from '../src/modules/tickets/ticket.entity';
import { csvRecords } from './csv';
import { addOrder, buildEvent, cancelFixtureOrder, type EventFixture } from './fixtures';
import {
  call,
  createTenant,
  getTestOrm,
  localWebhookEngine,
  startExportJobs,
  startTestServer,
  type TestServer,
} from './setup';

/**
 * The programs in examples/ run as real child processes against the real server: each is started
 * with tsx, resolving the SDK from its source, and judged by what it prints and what it changed.
 */

const examplesDir = fileURLToPath(new URL('../../../examples/', import.meta.url));
// tsx's loader in the example's own process (not its CLI, which would run it in a child): a signal
// or a kill from the test then reaches the program itself and leaves nothing behind.
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

let server: TestServer;
let exportJobs: ExportJobs;
let organisationId: string;
let key: string;
let workDir: string;
let gala: EventFixture;
let other: EventFixture;
let voidTicket: Ticket;
let commaBuyerOrderId: string;

const VIP_NAME = 'VIP <Backstage> & "Friends"';
const COMMA_BUYER = 'Hill, Dana "DJ"';

/** An example's `src/main.ts` under tsx, on the Node running the tests, with the SDK's source. */
function spawnExample(
  name: string,
  args: string[],
  apiKey = key,
  baseUrl?: string,
): ChildProcessWithoutNullStreams {
  const argv = ['--conditions=@boxoffice/source', '--import', tsxLoader, 'src/main.ts', ...args];
  return spawn(process.execPath, argv, {
    cwd: path.join(examplesDir, name),
    env: exampleEnv(apiKey, baseUrl),
  });
}

/** The example's environment: the test server's API, or `baseUrl`. */
function exampleEnv(apiKey: string, baseUrl = `${server.baseUrl}/api/v1`): NodeJS.ProcessEnv {
  // The test runner's own loader options are not the example's business.
  const { NODE_OPTIONS: _loader, ...env } = process.env;
  return {
    ...env,
    BOXOFFICE_API_KEY: apiKey,
    BOXOFFICE_BASE_URL: baseUrl,
    BOXOFFICE_LOG: 'warn',
  };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs an example to completion, with `input` on its stdin. */
function runExample(
  name: string,
  args: string[],
  options: { input?: string; apiKey?: string; baseUrl?: string } = {},
): Promise<Run> {
  const child = spawnExample(name, args, options.apiKey, options.baseUrl);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The printed line of the scan read from input line `line`. */
function scanLine(run: Run, line: number): string {
  const found = run.stdout.split('\n').find((text) => text.trimStart().startsWith(`${line}  `));
  expect(found, `no output for line ${line} in:\n${run.stdout}\n${run.stderr}`).toBeDefined();
  return found!;
}

async function checkinCount(ticketId: string): Promise<number> {
  const result = await call(server, 'GET', `/api/v1/checkins?ticket_id=${ticketId}`, { key });
  expect(result.status).toBe(200);
  return result.body.total;
}

async function attendeeName(ticket: Ticket): Promise<string> {
  const result = await call(server, 'GET', `/api/v1/attendees/${ticket.attendeeId}`, { key });
  expect(result.status).toBe(200);
  return `${result.body.data.first_name} ${result.body.data.last_name}`;
}

beforeAll(async () => {
  // Exports are made in this process, as a server's export jobs make them.
  exportJobs = await startExportJobs(1);
  server = await startTestServer({ exportQueue: exportJobs });
  const tenant = await createTenant();
  key = tenant.key;
  organisationId = tenant.organisationId;
  const org = organisationId;
  workDir = await mkdtemp(path.join(tmpdir(), 'boxoffice-examples-'));

  gala = await buildEvent(org, { tickets: 3, name: 'Examples Gala' });
  other = await buildEvent(org, { tickets: 1, name: 'Another Night' });
  const cancelled = await addOrder(org, gala.tier, { tickets: 1 });
  await cancelFixtureOrder(org, cancelled.order.id);
  voidTicket = cancelled.tickets[0]!;

  const vip = await call(server, 'POST', '/api/v1/tiers', {
    key,
    body: { event_id: gala.event.id, name: VIP_NAME, price: 9900, quantity_total: 20 },
  });
  expect(vip.status, JSON.stringify(vip.body)).toBe(201);
  await addOrder(org, { id: vip.body.data.id, eventId: gala.event.id }, { tickets: 2 });

  const orm = await getTestOrm();
  const order = await placeOrder(
    { em: orm.em.fork(), organisationId: org, livemode: true },
    {
      eventId: gala.event.id,
      buyerName: COMMA_BUYER,
      buyerEmail: 'dana.hill@example.com',
      lines: [
        {
          tierId: gala.tier.id,
          attendee: {
            firstName: 'Dana',
            lastName: 'Hill',
            email: null,
            company: null,
            answers: [],
          },
        },
      ],
      feePerTicket: 150,
      status: 'completed',
      placedAt: new Date(),
    },
  );
  commaBuyerOrderId = order.id;
});

afterAll(async () => {
  // Unset where beforeAll failed before it got to it.
  await (server as TestServer | undefined)?.close();
  await (exportJobs as ExportJobs | undefined)?.stop(5_000);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('examples: command lines', () => {
  it.each(['door-checkin', 'sync-orders', 'sales-dashboard', 'export-sync'])(
    '%s: --help prints the usage; a wrong option, what is wrong and the usage, with exit code 2',
    async (name) => {
      const help = await runExample(name, ['--help']);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: ${name} `));

      const wrong = await runExample(name, ['--no-such-option']);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(/'--no-such-option'/);
      expect(wrong.stderr).toContain(`Usage: ${name} `);
      expect(wrong.stdout).toBe('');
    },
  );
});

describe('examples/door-checkin', () => {
  /** A door of `eventId` (the gala's) at gate North, its files in `data`; no background refresh. */
  const doorArgs = (device: string, data: string, eventId = gala.event.id) => [
    '--event',
    eventId,
    '--gate',
    'North',
    '--device',
    device,
    '--data',
    path.join(workDir, data),
    '--refresh',
    '0',
  ];

  it('answers each scan from its copy of the event, sends the check-ins, and starts again from that copy', async () => {
    const [first, second] = gala.tickets;
    const codes = path.join(workDir, 'codes.txt');
    await writeFile(
      codes,
      [
        first!.code,
        second!.code,
        first!.code,
        voidTicket.code,
        'not-a-ticket-code',
        other.tickets[0]!.code,
        '',
        '# scanner restarted',
      ].join('\n') + '\n',
    );
    const args = doorArgs('e2e-scanner-1', 'north-1');
    const firstName = await attendeeName(first!);
    const secondName = await attendeeName(second!);

    const run = await runExample('door-checkin', [...args, '--file', codes]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/at gate "North", device "e2e-scanner-1": \d+ tickets downloaded/);
    expect(scanLine(run, 1)).toMatch(/ADMITTED/);
    expect(scanLine(run, 1)).toContain(firstName);
    expect(scanLine(run, 2)).toMatch(/ADMITTED/);
    expect(scanLine(run, 2)).toContain(secondName);
    // The door's own admission, answered before the server had heard of it.
    expect(scanLine(run, 3)).toMatch(
      /ALREADY IN \(since \d{4}-\d\d-\d\dT[\d:.]+Z at North, e2e-scanner-1\)/,
    );
    expect(scanLine(run, 3)).toContain(firstName);
    expect(scanLine(run, 4)).toMatch(/VOID/);
    expect(scanLine(run, 5)).toMatch(/UNKNOWN/);
    // Another event's ticket is not in this door's copy of the gala.
    expect(scanLine(run, 6)).toMatch(/UNKNOWN/);
    expect(run.stdout).not.toMatch(/CONFLICT/);
    expect(run.stdout).toContain(
      '6 scans: 2 admitted, 1 already in, 1 void, 0 wrong event, 2 unknown',
    );
    expect(run.stdout).toContain('check-ins sent: 2, none waiting');
    // Barcodes are secrets: never printed whole.
    expect(run.stdout).not.toContain(first!.code);
    expect(await checkinCount(first!.id)).toBe(1);
    expect(await checkinCount(second!.id)).toBe(1);
    expect(await checkinCount(voidTicket.id)).toBe(0);
    expect(await checkinCount(other.tickets[0]!.id)).toBe(0);
    const recorded = await call(server, 'GET', `/api/v1/checkins?ticket_id=${first!.id}`, { key });
    expect(recorded.body.data[0]).toMatchObject({ gate: 'North', device_id: 'e2e-scanner-1' });

    // The same file again on the same data directory, as after a crash: the door starts from its
    // copy, where both guests are inside, and records nothing more.
    const rerun = await runExample('door-checkin', [...args, '--file', codes]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/tickets restored from .*north-1/);
    expect(scanLine(rerun, 1)).toMatch(/ALREADY IN \(since .* at North, e2e-scanner-1\)/);
    expect(scanLine(rerun, 2)).toMatch(/ALREADY IN/);
    expect(scanLine(rerun, 4)).toMatch(/VOID/);
    expect(rerun.stdout).toContain('6 scans: 0 admitted, 3 already in');
    expect(rerun.stdout).toContain('check-ins sent: 0, none waiting');
    expect(await checkinCount(first!.id)).toBe(1);
    expect(await checkinCount(second!.id)).toBe(1);

    // An exit scan from stdin lets the guest out again.
    const exit = await runExample('door-checkin', [...args, '--exit'], {
      input: `${second!.code}\n`,
    });
    expect(exit.code, exit.stderr).toBe(0);
    expect(scanLine(exit, 1)).toMatch(/EXITED/);
    expect(await checkinCount(second!.id)).toBe(2);
    const ticket = await call(server, 'GET', `/api/v1/tickets/${second!.id}`, { key });
    expect(ticket.body.data.status).toBe('valid');
  });

  it('keeps scanning with the server out of reach, and a later run sends what it kept', async () => {
    // An event of its own: the gala's tickets and orders are counted by the other examples' tests.
    const night = await buildEvent(organisationId, { tickets: 1, name: 'Offline Night' });
    const guest = night.tickets[0]!;
    const args = doorArgs('e2e-scanner-3', 'north-3', night.event.id);
    const first = await runExample('door-checkin', args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/tickets downloaded/);

    // Nothing listens on this port: every request fails to connect.
    const down = `http://127.0.0.1:${await freePort()}/api/v1`;
    const offline = await runExample('door-checkin', args, {
      input: `${guest.code}\n${guest.code}\n`,
      baseUrl: down,
    });
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stderr).toMatch(/restored from .*north-3 \(the server is out of reach/);
    expect(offline.stderr).toMatch(/network: no answer from the server/);
    expect(scanLine(offline, 1)).toMatch(/ADMITTED/);
    expect(scanLine(offline, 1)).toContain(await attendeeName(guest));
    expect(scanLine(offline, 2)).toMatch(/ALREADY IN \(since .* at North, e2e-scanner-3\)/);
    expect(offline.stdout).toMatch(/check-ins sent: 0; 1 not sent yet, kept in .*north-3/);
    expect(await checkinCount(guest.id)).toBe(0);

    // The server is back: the next run sends the kept check-in first, once.
    const back = await runExample('door-checkin', args);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).toMatch(/restored from .*north-3, 1 check-in of an earlier run to send/);
    expect(back.stdout).toContain('check-ins sent: 1, none waiting');
    expect(await checkinCount(guest.id)).toBe(1);
    const recorded = await call(server, 'GET', `/api/v1/checkins?ticket_id=${guest.id}`, { key });
    expect(recorded.body.data[0]).toMatchObject({ gate: 'North', device_id: 'e2e-scanner-3' });
  });

  it('reports a conflict when another door admitted the guest before it heard of it', async () => {
    const night = await buildEvent(organisationId, { tickets: 1, name: 'Conflict Night' });
    const late = night.tickets[0]!;
    const door = spawnExample('door-checkin', doorArgs('e2e-scanner-4', 'north-4', night.event.id));
    let stdout = '';
    let stderr = '';
    door.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    door.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const closed = new Promise<number | null>((resolve) => door.on('close', resolve));
    try {
      const deadline = Date.now() + 20_000;
      while (!stderr.includes('tickets downloaded')) {
        if (Date.now() > deadline) throw new Error(`the door did not start:\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The South door admits the guest; the North door still has the copy it downloaded.
      const south = await call(server, 'POST', '/api/v1/checkins', {
        key,
        body: { code: late.code, gate: 'South', device_id: 'e2e-south' },
      });
      expect(south.status).toBe(201);
      door.stdin.end(`${late.code}\n`);
      expect(await closed, stderr).toBe(0);
    } finally {
      door.kill('SIGKILL');
    }
    const run = { code: 0, stdout, stderr };
    expect(scanLine(run, 1)).toMatch(/ADMITTED/);
    expect(stdout).toMatch(
      /^ {3}! {2}CONFLICT .*\(line 1\) was already in, since \d{4}-[\d\-T:.]+Z at South, e2e-south$/m,
    );
    expect(stdout).toContain(
      '1 scan: 1 admitted, 0 already in, 0 void, 0 wrong event, 0 unknown; 1 conflict',
    );
    expect(await checkinCount(late.id)).toBe(1);
  });

  it('stops with exit code 1 on a key the API refuses', async () => {
    const run = await runExample('door-checkin', doorArgs('e2e-scanner-2', 'north-2'), {
      input: `${gala.tickets[2]!.code}\n`,
      apiKey: `bxo_live_${'x'.repeat(40)}`,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/401 Invalid API key provided: bxo_live_…xxxx\./);
    expect(run.stdout).not.toMatch(/ADMITTED/);
  });
});

describe('examples/sync-orders', () => {
  it('exports one CSV row per order, then only what changed since', async () => {
    const out = path.join(workDir, 'orders.csv');
    const run = await runExample('sync-orders', ['--event', gala.event.id, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const rows = csvRecords(await readFile(out, 'utf8'));
    const orders = await call(server, 'GET', `/api/v1/orders?event_id=${gala.event.id}`, { key });
    expect(rows).toHaveLength(orders.body.total);
    expect(rows).toHaveLength(4);
    expect(new Set(rows.map((row) => row.order_id))).toEqual(
      new Set(orders.body.data.map((order: { id: string }) => order.id)),
    );

    const dana = rows.find((row) => row.order_id === commaBuyerOrderId);
    expect(dana).toMatchObject({
      buyer_name: COMMA_BUYER,
      event_id: gala.event.id,
      event_name: 'Examples Gala',
      status: 'completed',
      currency: 'GBP',
      subtotal: '25.00',
      fees: '1.50',
      total: '26.50',
      total_minor: '2650',
      refunded_amount: '0.00',
    });
    expect(rows.find((row) => row.status === 'cancelled')).toBeDefined();

    // The checkpoint: a minute before the run's first page was served.
    const resume = /Next incremental sync: --since (\S+)/.exec(run.stderr)?.[1];
    expect(resume, run.stderr).toMatch(/Z$/);
    const sinceResume = Date.now() - Date.parse(resume!);
    expect(sinceResume).toBeGreaterThanOrEqual(60_000);
    expect(sinceResume).toBeLessThan(120_000);

    // A refund after the export: the incremental run (all events, to stdout) brings it back.
    await cancelFixtureOrder(organisationId, commaBuyerOrderId, true);
    const incremental = await runExample('sync-orders', ['--since', resume!, '--no-progress']);
    expect(incremental.code, incremental.stderr).toBe(0);
    const changed = csvRecords(incremental.stdout);
    expect(changed.every((row) => row.updated_at! >= resume!)).toBe(true);
    expect(changed.find((row) => row.order_id === commaBuyerOrderId)).toMatchObject({
      status: 'refunded',
      refunded_amount: '26.50',
      refunded_amount_minor: '2650',
    });
    // Orders of the overlap minute come again, each once.
    expect(new Set(changed.map((row) => row.order_id)).size).toBe(changed.length);
  });
});

describe('examples/export-sync', () => {
  // The copy keeps every field of a ticket.
  const COLUMNS = Object.keys(TicketSchema.shape);

  // Ids compared as SQLite's `order by` compares them: code unit by code unit.
  const byId = (a: Record<string, unknown>, b: Record<string, unknown>) =>
    String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0;

  /** The example's SQLite copy, one object per ticket, by id. */
  function localTickets(file: string): Record<string, unknown>[] {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const rows = db.prepare(`select ${COLUMNS.join(', ')} from tickets order by id`).all();
      return rows.map((row) => ({ ...row, livemode: row.livemode === 1 }));
    } finally {
      db.close();
    }
  }

  /** The event's tickets as the API lists them, with the columns the copy keeps, by id. */
  async function serverTickets(eventId: string): Promise<Record<string, unknown>[]> {
    const list = await call(server, 'GET', `/api/v1/tickets?event_id=${eventId}&limit=100`, {
      key,
    });
    expect(list.status).toBe(200);
    expect(list.body.next_cursor).toBeNull();
    return (list.body.data as Record<string, unknown>[])
      .map((ticket) => Object.fromEntries(COLUMNS.map((column) => [column, ticket[column]])))
      .sort(byId);
  }

  it('copies the tickets with an export, then syncs only what changed since, equal to the list', async () => {
    // An event of its own: the gala's tickets are counted by the other examples' tests.
    const night = await buildEvent(organisationId, { tickets: 6, name: 'Export Night' });
    const db = path.join(workDir, 'night.db');
    const args = ['--event', night.event.id, '--db', db];

    const first = await runExample('export-sync', args);
    expect(first.code, first.stderr).toBe(0);
    const exportId = /^Export (exp_\w+) of the tickets of evt_\w+: pending, waiting/m.exec(
      first.stdout,
    )?.[1];
    expect(exportId, first.stdout).toBeDefined();
    expect(first.stdout).toContain(`Copied 6 tickets from export ${exportId} (6 rows, `);
    const checkpoint = /^Sync checkpoint: (\S+)$/m.exec(first.stdout)?.[1];
    const made = await call(server, 'GET', `/api/v1/exports/${exportId}`, { key });
    expect(made.body.data).toMatchObject({ status: 'ready', row_count: 6 });
    expect(checkpoint).toBe(made.body.data.sync_checkpoint);
    expect(localTickets(db)).toEqual(await serverTickets(night.event.id));

    // Changes after the export: a guest checked in through the API, and a new order's tickets.
    const guest = night.tickets[0]!;
    const checkin = await call(server, 'POST', '/api/v1/checkins', {
      key,
      body: { ticket_id: guest.id },
    });
    expect(checkin.status, JSON.stringify(checkin.body)).toBe(201);
    await addOrder(organisationId, night.tier, { tickets: 2 });

    const second = await runExample('export-sync', args);
    expect(second.code, second.stderr).toBe(0);
    // The tickets of the minute before the checkpoint come again: upserted, unchanged.
    expect(second.stdout).toContain(
      `Synced the tickets of ${night.event.id} changed since ${checkpoint}: 2 new, 1 changed, 5 unchanged; 8 tickets in ${db}.`,
    );
    const next = /^Sync checkpoint: (\S+)$/m.exec(second.stdout)?.[1];
    expect(Date.parse(next!)).toBeGreaterThan(Date.parse(checkpoint!));
    const local = localTickets(db);
    expect(local).toEqual(await serverTickets(night.event.id));
    expect(local.find((ticket) => ticket.id === guest.id)?.status).toBe('checked_in');

    // Another event's tickets are not this database's.
    const other = await runExample('export-sync', ['--event', gala.event.id, '--db', db]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`holds the tickets of ${night.event.id}`);
  });
});

describe('examples/sales-dashboard', () => {
  let child: ChildProcessWithoutNullStreams | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
  });

  it('serves the picker and an event page with tier sales, order counts and check-ins', async () => {
    const scan = await call(server, 'POST', '/api/v1/checkins', {
      key,
      body: { code: gala.tickets[2]!.code, gate: 'South', device_id: 'front-desk' },
    });
    expect(scan.status).toBe(201);
    child = spawnExample('sales-dashboard', ['--port', '0']);
    const running = child;
    let stderr = '';
    running.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const base = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${stderr}`)), 20_000);
      running.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const url = /http:\/\/[^\s]+:\d+/.exec(stdout)?.[0];
        if (url) {
          clearTimeout(timer);
          resolve(url);
        }
      });
      running.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });

    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const picker = await fetch(`${base}/`);
    expect(picker.status).toBe(200);
    const pickerHtml = await picker.text();
    expect(pickerHtml).toContain('Examples Gala');
    expect(pickerHtml).toContain(`href="/events/${gala.event.id}"`);
    expect(pickerHtml).toMatch(/<meta http-equiv="refresh" content="30" ?\/?>/);

    const response = await fetch(`${base}/events/${gala.event.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await response.text();
    expect(page).toContain('<h1>Examples Gala</h1>');
    expect(page).not.toContain(key);
    // Names from the data are escaped, never markup.
    expect(page).not.toContain('<Backstage>');
    expect(page).toContain('VIP &lt;Backstage&gt; &amp; &quot;Friends&quot;');

    const tiers = await call(server, 'GET', `/api/v1/tiers?event_id=${gala.event.id}`, { key });
    expect(tiers.body.data).toHaveLength(2);
    const rows = page.split('<tr>');
    for (const tier of tiers.body.data) {
      const escaped = tier.name
        .replaceAll('&', '&amp;')
        .replaceAll('<', '&lt;')
        .replaceAll('>', '&gt;')
        .replaceAll('"', '&quot;');
      const row = rows.find((text) => text.includes(`<td>${escaped}</td>`));
      expect(row, `no row for ${tier.name}`).toBeDefined();
      expect(row).toContain(`<td class="num">${tier.quantity_sold}</td>`);
      expect(row).toContain(`<td class="num">${tier.quantity_total}</td>`);
      expect(row).toContain(`<td class="num">${tier.quantity_available}</td>`);
    }
    // VIP: 2 sold of 20 at £99.00.
    expect(rows.find((text) => text.includes('VIP &lt;'))).toContain('£198.00');

    const count = async (query: string) =>
      (await call(server, 'GET', `/api/v1/${query}`, { key })).body.total as number;
    const checkedIn = await count(`attendees?event_id=${gala.event.id}&checked_in=true`);
    const tickets = await count(`tickets?event_id=${gala.event.id}&status=valid,checked_in`);
    expect(checkedIn).toBeGreaterThan(0);
    expect(page).toContain(`${checkedIn} of ${tickets} tickets`);
    const completed = await count(`orders?event_id=${gala.event.id}&status=completed`);
    expect(page).toMatch(
      new RegExp(`badge completed">completed</span></td>\\s*<td class="num">${completed}<`),
    );
    expect(page).toMatch(/<td>South<\/td>\s*<td>front-desk<\/td>/);

    const missing = await fetch(`${base}/events/evt_0000000000000000nothing`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('Event not found');

    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
    child = undefined;
  });
});

describe('examples/door-display', () => {
  it('counts who is inside from check-in webhooks it verifies, and refuses forged ones', async () => {
    // The delivery engine as every API process runs it, allowed to reach the loopback display.
    const engine = localWebhookEngine(inject('databaseUrl'));
    await engine.start();
    const night = await buildEvent(organisationId, { tickets: 2, name: 'Display Night' });
    const port = await freePort();
    const orm = await getTestOrm();
    const { secret } = await createEndpoint(
      { em: orm.em.fork(), organisationId, livemode: true },
      { url: `http://127.0.0.1:${port}/webhooks`, events: ['checkin.created'] },
      { allowHttp: true, allowPrivate: true },
    );
    const display = spawn(
      process.execPath,
      ['--conditions=@boxoffice/source', '--import', tsxLoader, 'src/main.ts'],
      {
        cwd: path.join(examplesDir, 'door-display'),
        env: { ...exampleEnv(key), BOXOFFICE_WEBHOOK_SECRET: secret, PORT: String(port) },
      },
    );
    let stdout = '';
    display.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    display.stderr.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const waitFor = async (text: string) => {
      const deadline = Date.now() + 20_000;
      while (!stdout.includes(text)) {
        if (Date.now() > deadline) throw new Error(`no "${text}" in:\n${stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    try {
      await waitFor('door display on');
      const [first, second] = night.tickets;
      for (const body of [
        { ticket_id: first!.id, gate: 'North' },
        { ticket_id: second!.id, gate: 'North' },
        { ticket_id: first!.id, gate: 'North', direction: 'exit' },
      ]) {
        const scan = await call(server, 'POST', '/api/v1/checkins', { key, body });
        expect(scan.status).toBe(201);
      }
      await waitFor(`exit at North: 1 inside ${night.event.id}`);
      expect(stdout).toContain(`entry at North: 2 inside ${night.event.id}`);
      const status = await fetch(`http://127.0.0.1:${port}/status`);
      expect(((await status.json()) as { events: Record<string, number> }).events).toEqual({
        [night.event.id]: 1,
      });

      const forged = await fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: 'POST',
        headers: {
          'webhook-id': 'msg_forged',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,bm90IGEgc2lnbmF0dXJl',
        },
        body: JSON.stringify({ type: 'checkin.created', data: { object: {} } }),
      });
      expect(forged.status).toBe(400);
      await waitFor('refused a delivery: no webhook-signature matches the secret');
    } finally {
      const exited = new Promise((resolve) => display.once('exit', resolve));
      display.kill('SIGTERM');
      await exited;
      await engine.stop();
    }
  });
});
