import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Boxoffice,
  ConflictError,
  ExportFormatError,
  type ExportOf,
  type Ticket,
} from '@boxoffice/sdk';
import type { ExportJobs } from '../src/modules/exports/export-jobs';
import { addOrder, buildEvent, type EventFixture } from './fixtures';
import { createTenant, startExportJobs, startTestServer, type TestServer } from './setup';

/**
 * The SDK's exports against the real server, its export jobs running in this process: the
 * export is made in the background, and its file streamed over real HTTP.
 */

let jobs: ExportJobs;
let server: TestServer;
let key: string;
let gala: EventFixture;

interface Seen {
  headers: Record<string, string>;
  status: number;
  encoding: string | null;
}

/**
 * The global `fetch`, recording each file request and its answer; `cut(n)` breaks the body of the
 * `n`-th file answer (from 0) after `bytes` bytes, as a dropped connection does.
 */
function recordingFetch(cut?: { answer: number; bytes: number }) {
  const seen: Seen[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const url = String(input instanceof Request ? input.url : input);
    if (!url.includes('/file')) return response;
    seen.push({
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      status: response.status,
      encoding: response.headers.get('content-encoding'),
    });
    if (cut?.answer !== seen.length - 1 || response.body === null) return response;
    const reader = response.body.getReader();
    let sent = 0;
    const broken = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        if (sent + value.byteLength < cut.bytes) {
          sent += value.byteLength;
          return controller.enqueue(value);
        }
        controller.enqueue(value.subarray(0, cut.bytes - sent));
        await reader.cancel();
        controller.error(new TypeError('terminated', { cause: new Error('other side closed') }));
      },
    });
    return new Response(broken, response);
  };
  return { seen, fetch: wrapped };
}

function client(fetchImpl: typeof fetch = fetch): Boxoffice {
  return new Boxoffice({ apiKey: key, baseURL: `${server.baseUrl}/api/v1`, fetch: fetchImpl });
}

/** Every ticket of the gala, as the list pages them. */
async function listed(sdk: Boxoffice): Promise<Ticket[]> {
  const all: Ticket[] = [];
  for await (const ticket of sdk.tickets.list({ event_id: gala.event.id, limit: 100 })) {
    all.push(ticket);
  }
  return all;
}

async function readyExport(
  sdk: Boxoffice,
  format: 'ndjson' | 'csv' = 'ndjson',
): Promise<ExportOf<'tickets'>> {
  const created = await sdk.exports.create({
    resource: 'tickets',
    filters: { event_id: gala.event.id },
    format,
  });
  expect(created).toMatchObject({ resource: 'tickets', status: 'pending', format });
  return sdk.exports.waitUntilReady(created, { timeoutMs: 30_000 });
}

beforeAll(async () => {
  // Files of many chunks: the gzip file is many gzip members end to end, as a large one is.
  jobs = await startExportJobs(2, 4_096);
  server = await startTestServer({ exportQueue: jobs });
  const tenant = await createTenant();
  key = tenant.key;
  gala = await buildEvent(tenant.organisationId, { tickets: 5, name: 'Export Gala' });
  await addOrder(tenant.organisationId, gala.tier, { tickets: 40 });
});

let stopped: Promise<void> | undefined;
const stopJobs = () => (stopped ??= jobs.stop(5_000));

afterAll(async () => {
  await (server as TestServer | undefined)?.close();
  if (jobs as ExportJobs | undefined) await stopJobs();
});

describe('SDK exports against the server', () => {
  it('waits for an export, streams its typed rows (gzip), and continues the sync from its checkpoint', async () => {
    const recorder = recordingFetch();
    const sdk = client(recorder.fetch);
    const ready = await readyExport(sdk);
    expect(ready.status).toBe('ready');
    expect(ready.row_count).toBe(45);
    expect(ready.size_bytes).toBeGreaterThan(3 * 4_096);

    const rows: Ticket[] = [];
    for await (const ticket of sdk.exports.rows(ready)) rows.push(ticket);
    expect(rows).toEqual(await listed(sdk));
    // Asked for gzip, sent gzip, decoded by the fetch.
    expect(recorder.seen).toEqual([
      {
        headers: expect.objectContaining({ 'accept-encoding': 'gzip' }),
        status: 200,
        encoding: 'gzip',
      },
    ]);

    // A change after the export's snapshot comes with `updated_since` = its checkpoint.
    const guest = gala.tickets[0]!;
    await sdk.checkins.create({ ticket_id: guest.id });
    const changed: Ticket[] = [];
    for await (const ticket of sdk.tickets.list({
      event_id: gala.event.id,
      updated_since: ready.sync_checkpoint!,
    })) {
      changed.push(ticket);
    }
    expect(changed.find((t) => t.id === guest.id)?.status).toBe('checked_in');
  });

  it('resumes a download broken midway with Range and If-Range, each row once', async () => {
    const ready = await readyExport(client());
    // The unencoded file, cut after 6 000 bytes: inside a row of its second chunk.
    const recorder = recordingFetch({ answer: 0, bytes: 6_000 });
    const sdk = client(recorder.fetch);
    const rows: Ticket[] = [];
    for await (const ticket of sdk.exports.rows(ready, {
      headers: { 'accept-encoding': 'identity' },
    })) {
      rows.push(ticket);
    }
    expect(rows).toEqual(await listed(sdk));
    expect(recorder.seen).toHaveLength(2);
    const [first, resumed] = recorder.seen;
    expect(first).toMatchObject({ status: 200, encoding: null });
    expect(resumed!.status).toBe(206);
    const offset = Number(/^bytes=(\d+)-$/.exec(resumed!.headers.range ?? '')?.[1]);
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeGreaterThan(4_096);
    expect(offset).toBeLessThanOrEqual(6_000);
    expect(resumed!.headers['if-range']).toMatch(/^"exp_/);
  });

  it('resumes a gzip download on the unencoded file', async () => {
    const ready = await readyExport(client());
    const recorder = recordingFetch({ answer: 0, bytes: 700 });
    const sdk = client(recorder.fetch);
    const rows: Ticket[] = [];
    for await (const ticket of sdk.exports.rows(ready)) rows.push(ticket);
    expect(rows).toEqual(await listed(sdk));
    expect(recorder.seen.map((s) => [s.status, s.encoding, s.headers['accept-encoding']])).toEqual([
      [200, 'gzip', 'gzip'],
      [206, null, 'identity'],
    ]);
  });

  it('refuses rows() of a CSV export, and downloads its file', async () => {
    const sdk = client();
    const ready = await readyExport(sdk, 'csv');
    await expect(sdk.exports.rows(ready).next()).rejects.toBeInstanceOf(ExportFormatError);
    const response = await sdk.exports.download(ready);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await response.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(46);
    expect(lines[0]).toMatch(/^id,/);
  });

  it('lists exports with the list iterators, and refuses the file of one not ready', async () => {
    const sdk = client();
    const ids: string[] = [];
    for await (const exp of sdk.exports.list({ resource: 'tickets', limit: 2 })) ids.push(exp.id);
    expect(ids.length).toBeGreaterThanOrEqual(4);
    expect(new Set(ids).size).toBe(ids.length);

    // No export is made any more (the last test of the file): a new one stays pending.
    await stopJobs();
    const pending = await sdk.exports.create({ resource: 'events' });
    const refused = await sdk.exports
      .rows(pending)
      .next()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused).toMatchObject({ code: 'export_not_ready' });
  });
});
