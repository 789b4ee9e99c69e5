/**
 * The SDK measurements, each in a process of its own (started by the harness) so that nothing of
 * the load generator shares its heap or event loop. Prints one JSON object on stdout.
 *
 *   node src/sdk-client.ts calls '{"baseURL":…,"apiKey":…,"calls":2000,"warmup":200}'
 *   node --expose-gc src/sdk-client.ts iterate '{"baseURL":…,"apiKey":…,"expected":100000}'
 *   node src/sdk-client.ts door '{"baseURL":…,"apiKey":…,"eventId":…,"codes":[…],"storeDir":…}'
 *   node --expose-gc src/sdk-client.ts export-rows '{"baseURL":…,"apiKey":…,"exportId":…,"expected":…}'
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Boxoffice } from '@boxoffice/sdk';
import { openDoor } from '@boxoffice/sdk/doors';
import { FileDoorStore } from '../../examples/door-checkin/src/file-store.ts';
import { median, percentile } from './stats.ts';

interface Settings {
  baseURL: string;
  apiKey: string;
  calls?: number;
  warmup?: number;
  expected?: number;
  /** `door`: the event at the door, and the codes scanned, one every `intervalMs`. */
  eventId?: string;
  codes?: string[];
  intervalMs?: number;
  /** `export-rows`: the `ready` NDJSON export whose rows are read. */
  exportId?: string;
}

export interface CallsResult {
  calls: number;
  sdkMedianMs: number;
  fetchMedianMs: number;
  sdkMs: number[];
  fetchMs: number[];
}

export interface IterateResult {
  items: number;
  ms: number;
  baselineHeapBytes: number;
  peakHeapBytes: number;
  peakGrowthBytes: number;
  samples: number;
  deepPage: DeepPageResult;
}

/** The latency of a deep cursor page against the first cursor page of the same list. */
export interface DeepPageResult {
  /** Which cursor page was measured as deep (the 1,000th when the list has that many). */
  depth: number;
  limit: number;
  firstMedianMs: number;
  deepMedianMs: number;
  firstMs: number[];
  deepMs: number[];
}

/** A door session's scans, each answered from its own state: how long each answer took. */
export interface DoorResult {
  /** Tickets the door downloaded, and how long `load()` took. */
  tickets: number;
  loadMs: number;
  scans: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Scans still unsent after `close()` (0: every check-in reached the server). */
  pending: number;
}

/** `exports.rows()` over a whole export: how fast, and how much heap it holds on the way. */
export interface ExportRowsResult {
  rows: number;
  ms: number;
  rowsPerSecond: number;
  baselineHeapBytes: number;
  peakHeapBytes: number;
  peakGrowthBytes: number;
  samples: number;
}

const client = (settings: Settings) =>
  new Boxoffice({ apiKey: settings.apiKey, baseURL: settings.baseURL, logLevel: 'off' });

/** `client.events.list({ limit: 20 })` against `fetch` + `res.json()` of the same URL, interleaved. */
async function calls(settings: Settings): Promise<CallsResult> {
  const sdk = client(settings);
  const url = `${settings.baseURL}/events?limit=20`;
  const headers = { Authorization: `Bearer ${settings.apiKey}` };
  const viaSdk = async () => {
    const page = await sdk.events.list({ limit: 20 });
    if (page.data.length === 0) throw new Error('the SDK got an empty page');
  };
  const viaFetch = async () => {
    const response = await fetch(url, { headers });
    const body = (await response.json()) as { data?: unknown[] };
    if (!response.ok || !body.data?.length) throw new Error(`fetch got ${response.status}`);
  };
  const timed = async (call: () => Promise<void>) => {
    const started = performance.now();
    await call();
    return performance.now() - started;
  };
  for (let i = 0; i < (settings.warmup ?? 200); i++) {
    await viaSdk();
    await viaFetch();
  }
  const sdkMs: number[] = [];
  const fetchMs: number[] = [];
  const n = settings.calls ?? 2000;
  for (let i = 0; i < n; i++) {
    // Alternate which goes first, so neither always follows the other.
    if (i % 2 === 0) {
      sdkMs.push(await timed(viaSdk));
      fetchMs.push(await timed(viaFetch));
    } else {
      fetchMs.push(await timed(viaFetch));
      sdkMs.push(await timed(viaSdk));
    }
  }
  return {
    calls: n,
    sdkMedianMs: median(sdkMs),
    fetchMedianMs: median(fetchMs),
    sdkMs,
    fetchMs,
  };
}

/** `for await` over every event of one organisation, sampling the heap once per page. */
async function iterate(settings: Settings): Promise<IterateResult> {
  const gc = globalThis.gc;
  if (!gc) throw new Error('run with --expose-gc');
  const sdk = client(settings);
  gc();
  gc();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  let items = 0;
  let samples = 0;
  const started = performance.now();
  for await (const event of sdk.events.list({ limit: 100 })) {
    if (!event.id) throw new Error('an event without id');
    items++;
    if (items % 100 === 0) {
      samples++;
      const used = process.memoryUsage().heapUsed;
      if (used > peak) peak = used;
    }
  }
  const ms = performance.now() - started;
  if (settings.expected !== undefined && items !== settings.expected) {
    throw new Error(`iterated ${items} events, expected ${settings.expected}`);
  }
  return {
    items,
    ms,
    baselineHeapBytes: baseline,
    peakHeapBytes: peak,
    peakGrowthBytes: peak - baseline,
    samples,
    deepPage: await deepPage(settings, sdk),
  };
}

/**
 * The server's time for the first cursor page (the list's second page) and for a deep one (the
 * 1,000th cursor page, or the last there is): the cursors are collected by walking the list, then
 * each page is fetched in turn, alternating, and timed from request to parsed body.
 */
async function deepPage(settings: Settings, sdk: Boxoffice): Promise<DeepPageResult> {
  const limit = 50;
  const cursors: string[] = [];
  for await (const page of sdk.events.list({ limit }).iterPages()) {
    if (page.nextCursor) cursors.push(page.nextCursor);
    if (cursors.length > 1000) break;
  }
  const depth = Math.min(1000, cursors.length);
  const [firstCursor] = cursors;
  const deepCursor = cursors[depth - 1];
  if (depth < 2 || firstCursor === undefined || deepCursor === undefined) {
    throw new Error('too few pages for a deep cursor page');
  }
  const headers = { Authorization: `Bearer ${settings.apiKey}` };
  const timed = async (cursor: string) => {
    const started = performance.now();
    const response = await fetch(`${settings.baseURL}/events?limit=${limit}&cursor=${cursor}`, {
      headers,
    });
    const body = (await response.json()) as { data?: unknown[] };
    if (!response.ok || body.data?.length !== limit)
      throw new Error(`cursor page: ${response.status}`);
    return performance.now() - started;
  };
  const firstMs: number[] = [];
  const deepMs: number[] = [];
  for (let i = 0; i < 220; i++) {
    const first = await timed(firstCursor);
    const deep = await timed(deepCursor);
    // The first 20 of each warm up.
    if (i >= 20) {
      firstMs.push(first);
      deepMs.push(deep);
    }
  }
  return {
    depth,
    limit,
    firstMedianMs: median(firstMs),
    deepMedianMs: median(deepMs),
    firstMs,
    deepMs,
  };
}

/** `for await` over every row of a `ready` export (its file read as it arrives), sampling the heap. */
async function exportRows(settings: Settings): Promise<ExportRowsResult> {
  const gc = globalThis.gc;
  if (!gc) throw new Error('run with --expose-gc');
  const { exportId } = settings;
  if (!exportId) throw new Error('export-rows needs exportId');
  const sdk = client(settings);
  gc();
  gc();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  let rows = 0;
  let samples = 0;
  const started = performance.now();
  for await (const row of sdk.exports.rows(exportId)) {
    if (!row.id) throw new Error('an export row without id');
    rows++;
    if (rows % 1000 === 0) {
      samples++;
      const used = process.memoryUsage().heapUsed;
      if (used > peak) peak = used;
    }
  }
  const ms = performance.now() - started;
  if (settings.expected !== undefined && rows !== settings.expected) {
    throw new Error(`exports.rows() gave ${rows} rows, expected ${settings.expected}`);
  }
  return {
    rows,
    ms,
    rowsPerSecond: rows / (ms / 1000),
    baselineHeapBytes: baseline,
    peakHeapBytes: peak,
    peakGrowthBytes: peak - baseline,
    samples,
  };
}

/**
 * A door of the event over the example's file store (as a door app keeps its scans), downloading
 * the tickets, then scanning `codes` one every `intervalMs` while its batches go to the server in
 * the background: the time of each `scan()`.
 */
async function door(settings: Settings): Promise<DoorResult> {
  const { eventId, codes } = settings;
  if (!eventId || !codes) throw new Error('door needs eventId and codes');
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-door-'));
  try {
    const store = await FileDoorStore.open(dir);
    const session = openDoor(client(settings), {
      eventId,
      gate: 'Bench',
      deviceId: 'bench-1',
      store,
      refreshIntervalMs: 0,
    });
    const loadStarted = performance.now();
    const loaded = await session.load();
    const loadMs = performance.now() - loadStarted;
    const ms: number[] = [];
    for (const code of codes) {
      const started = performance.now();
      const outcome = await session.scan(code);
      ms.push(performance.now() - started);
      if (outcome.result === 'unknown') throw new Error(`the door does not know ${code}`);
      await sleep(settings.intervalMs ?? 10);
    }
    await session.close();
    await store.close();
    return {
      tickets: loaded.tickets,
      loadMs,
      scans: ms.length,
      p50Ms: median(ms),
      p99Ms: percentile(ms, 99),
      maxMs: Math.max(...ms),
      pending: session.pending,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const [mode, json] = process.argv.slice(2);
const settings = JSON.parse(json ?? '{}') as Settings;
const result =
  mode === 'calls'
    ? await calls(settings)
    : mode === 'iterate'
      ? await iterate(settings)
      : mode === 'door'
        ? await door(settings)
        : mode === 'export-rows'
          ? await exportRows(settings)
          : null;
if (!result) throw new Error(`unknown mode '${mode}' (calls, iterate, door or export-rows)`);
process.stdout.write(`${JSON.stringify(result)}\n`);
