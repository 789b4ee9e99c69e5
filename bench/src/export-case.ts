/**
 * A large export against a running API server: `POST /exports` of one organisation's tickets,
 * timed until `GET /exports/{id}` says `ready`, with the server's RSS sampled meanwhile; then the
 * finished file downloaded over loopback, unencoded and gzip-encoded in turn, as fast as the
 * harness reads it. Any answer out of place (an export that fails, a wrong row count or size, a
 * download cut short) throws.
 */
import http from 'node:http';
import { rssOf, sampleRss, sleep, type ServerProcess } from './processes.ts';
import { median } from './stats.ts';

const MB = 1024 * 1024;
/** How often the harness looks at the export while it is made. */
const POLL_MS = 100;
/** An export not ready after this long has failed, whatever its status says. */
const READY_TIMEOUT_MS = 15 * 60_000;

interface ExportBody {
  id: string;
  status: string;
  row_count: number | null;
  size_bytes: number | null;
  created_at: string;
  completed_at: string | null;
  failure_reason: string | null;
}

export interface DownloadRun {
  encoding: 'identity' | 'gzip';
  /** Bytes received, as sent (gzip-encoded ones for gzip). */
  bytes: number;
  ms: number;
  /** `bytes` per second, in MB (2^20 bytes). */
  mbPerSecond: number;
  /** The file's own (unencoded) bytes delivered per second, in MB. */
  fileMbPerSecond: number;
}

export interface ExportCaseResult {
  exportId: string;
  rows: number;
  sizeBytes: number;
  /** The harness's time from sending `POST /exports` to seeing `ready`. */
  readyMs: number;
  /** The server's own stamps: `completed_at` minus `created_at`. */
  serverMs: number;
  /** The API server's RSS just before the `POST`, and its peak until `ready` (every 100 ms). */
  idleRssBytes: number;
  peakRssBytes: number;
  rssGrowthBytes: number;
  downloads: DownloadRun[];
  /** Medians of the downloads of each encoding. */
  identityMbPerSecond: number;
  gzipMbPerSecond: number;
  gzipFileMbPerSecond: number;
  gzipBytes: number;
  /** The server's RSS peak over all the downloads, over its RSS just before them. */
  downloadRssGrowthBytes: number;
}

interface Api {
  baseUrl: string;
  authorization: string;
}

async function api<T>(
  { baseUrl, authorization }: Api,
  method: 'GET' | 'POST',
  path: string,
  body?: object,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${baseUrl}/api/v1${path}`, {
    method,
    headers: {
      authorization,
      ...(body && { 'content-type': 'application/json' }),
    },
    body: body ? JSON.stringify(body) : null,
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** Starts an export; resolves to the export once `ready` (and the ms from the `POST` on). */
async function exportUntilReady(
  target: Api,
  request: object,
): Promise<{ exp: ExportBody; readyMs: number }> {
  const started = performance.now();
  const created = await api<{ data: ExportBody }>(target, 'POST', '/exports', request);
  if (created.status !== 202) {
    throw new Error(`POST /exports answered ${created.status}: ${JSON.stringify(created.body)}`);
  }
  const { id } = created.body.data;
  for (;;) {
    const current = await api<{ data: ExportBody }>(target, 'GET', `/exports/${id}`);
    if (current.status !== 200) {
      throw new Error(`GET /exports/${id} answered ${current.status}`);
    }
    const exp = current.body.data;
    if (exp.status === 'ready') return { exp, readyMs: performance.now() - started };
    if (exp.status === 'failed' || exp.status === 'expired') {
      throw new Error(`the export ${id} is ${exp.status}: ${exp.failure_reason ?? 'no reason'}`);
    }
    if (performance.now() - started > READY_TIMEOUT_MS) {
      throw new Error(`the export ${id} was still ${exp.status} after ${READY_TIMEOUT_MS} ms`);
    }
    await sleep(POLL_MS);
  }
}

/**
 * The whole file in one encoding, read with `node:http` as it arrives and counted, never decoded
 * (decoding would measure the harness): its bytes and how long they took, from request to end.
 */
function download(
  target: Api,
  id: string,
  encoding: 'identity' | 'gzip',
): Promise<{ bytes: number; ms: number }> {
  const url = new URL(`${target.baseUrl}/api/v1/exports/${id}/file`);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get(
      url,
      {
        headers: { authorization: target.authorization, 'accept-encoding': encoding },
        agent: false,
      },
      (response) => {
        const sentEncoding = response.headers['content-encoding'] ?? 'identity';
        const length = Number(response.headers['content-length']);
        if (response.statusCode !== 200 || sentEncoding !== encoding) {
          response.resume();
          reject(
            new Error(
              `GET /exports/${id}/file (${encoding}) answered ${response.statusCode} in ${sentEncoding}`,
            ),
          );
          return;
        }
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.once('error', reject);
        response.once('end', () => {
          const ms = performance.now() - started;
          if (!response.complete || (Number.isFinite(length) && bytes !== length)) {
            reject(new Error(`the ${encoding} file broke off: ${bytes} of ${length} bytes`));
          } else {
            resolve({ bytes, ms });
          }
        });
      },
    );
    request.once('error', reject);
  });
}

export async function exportCase(
  server: ServerProcess,
  options: {
    /** A key of the organisation that holds the tickets. */
    apiKey: string;
    /** How many tickets it holds, and so how many rows the export must have. */
    tickets: number;
    /** An order of those tickets: its export warms the path up first. */
    warmUpOrderId: string;
    /** Downloads of each encoding, alternating. */
    downloads: number;
  },
): Promise<ExportCaseResult> {
  const target: Api = { baseUrl: server.baseUrl, authorization: `Bearer ${options.apiKey}` };
  // A small export of the same list first, file and all: the code of the path loaded and
  // compiled, as on a server that has made exports before.
  const warm = await exportUntilReady(target, {
    resource: 'tickets',
    filters: { order_id: options.warmUpOrderId },
  });
  const warmRows = Math.min(10, options.tickets);
  if (warm.exp.row_count !== warmRows) {
    throw new Error(`the warm-up export has ${warm.exp.row_count} rows, expected ${warmRows}`);
  }
  await download(target, warm.exp.id, 'identity');
  await download(target, warm.exp.id, 'gzip');
  await sleep(1000);

  const idleRssBytes = rssOf(server.pid) ?? 0;
  const stopSampling = sampleRss([server.pid]);
  const { exp, readyMs } = await exportUntilReady(target, { resource: 'tickets' });
  const peakRssBytes = stopSampling().get(server.pid) ?? 0;
  if (exp.row_count !== options.tickets) {
    throw new Error(`the export ${exp.id} has ${exp.row_count} rows, expected ${options.tickets}`);
  }
  const sizeBytes = exp.size_bytes ?? 0;
  const serverMs = Date.parse(exp.completed_at ?? '') - Date.parse(exp.created_at);

  await sleep(500);
  const beforeDownloads = rssOf(server.pid) ?? 0;
  const stopDownloadSampling = sampleRss([server.pid]);
  const downloads: DownloadRun[] = [];
  for (let i = 0; i < options.downloads; i++) {
    const order = i % 2 === 0 ? (['identity', 'gzip'] as const) : (['gzip', 'identity'] as const);
    for (const encoding of order) {
      const { bytes, ms } = await download(target, exp.id, encoding);
      if (encoding === 'identity' && bytes !== sizeBytes) {
        throw new Error(`the file has ${bytes} bytes, its export says ${sizeBytes}`);
      }
      downloads.push({
        encoding,
        bytes,
        ms,
        mbPerSecond: bytes / MB / (ms / 1000),
        fileMbPerSecond: sizeBytes / MB / (ms / 1000),
      });
    }
  }
  const downloadPeak = stopDownloadSampling().get(server.pid) ?? 0;
  const of = (encoding: DownloadRun['encoding']) =>
    downloads.filter((d) => d.encoding === encoding);
  return {
    exportId: exp.id,
    rows: exp.row_count,
    sizeBytes,
    readyMs,
    serverMs,
    idleRssBytes,
    peakRssBytes,
    rssGrowthBytes: peakRssBytes - idleRssBytes,
    downloads,
    identityMbPerSecond: median(of('identity').map((d) => d.mbPerSecond)),
    gzipMbPerSecond: median(of('gzip').map((d) => d.mbPerSecond)),
    gzipFileMbPerSecond: median(of('gzip').map((d) => d.fileMbPerSecond)),
    gzipBytes: of('gzip')[0]?.bytes ?? 0,
    downloadRssGrowthBytes: downloadPeak - beforeDownloads,
  };
}
