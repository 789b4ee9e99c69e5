import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import type { EntityManager } from '@mikro-orm/postgresql';
import { initServer } from '@ts-rest/express';
import { contract, EXPORT_CONTENT_TYPES } from '@boxoffice/contract';
import type { Request, Response } from 'express';
import type { TenantContext } from '../../core/context';
import { AppError } from '../../core/errors';
import {
  createExport,
  getExport,
  listExports,
  openExportFile,
  readChunk,
  toExportResource,
  type ExportFile,
  type ExportQueue,
} from '../../modules/exports/export.service';
import { tenantOf } from '../locals';
import { write } from '../write';
import { readHandlers } from './read-handlers';

const s = initServer();
const gunzip = promisify(gunzipCallback);

/** Whether `Accept-Encoding` takes gzip (by name, or `*`) with a weight above 0. */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find(Boolean);
    const weight = q === undefined ? 1 : Number(q);
    if (name === 'gzip' || name === 'x-gzip') gzip = weight;
    else if (name === '*') any = weight;
  }
  return (gzip ?? any ?? 0) > 0;
}

/** A byte range `[start, end)` of a representation. */
interface ByteRange {
  start: number;
  end: number;
}

/**
 * The one range of a `Range: bytes=…` header within `size` bytes: `a-b`, `a-` or `-n` (the last
 * n). Undefined when the header is absent, malformed or asks for several ranges (the whole
 * representation is sent, as RFC 9110 allows); `unsatisfiable` when it starts past the end.
 */
export function byteRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size };
  }
  const start = Number(first);
  const end = last === '' ? size : Math.min(size, Number(last) + 1);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** Chunks read (and decompressed) at once, ahead of the one being sent (more bought nothing). */
const CHUNKS_AHEAD = 2;

/**
 * The bytes `[start, end)` of a file, chunk by chunk: with gzip, the stored members as they are
 * (laid end to end they are one gzip stream); without, each member decompressed. The next
 * CHUNKS_AHEAD chunks are read (and decompressed, on the thread pool) while one is sent.
 */
async function* fileBytes(
  em: EntityManager,
  file: ExportFile,
  gzip: boolean,
  { start, end }: ByteRange,
): AsyncGenerator<Buffer> {
  const wanted = file.chunks
    .map((chunk) => ({
      seq: chunk.seq,
      offset: gzip ? chunk.gzipOffset : chunk.rawOffset,
      length: gzip ? chunk.gzipSize : chunk.rawSize,
    }))
    .filter(({ offset, length }) => offset + length > start && offset < end);
  const load = async ({ seq, length }: (typeof wanted)[number]) => {
    const stored = await readChunk(em, file, seq);
    // Its whole text in one step of the thread pool, not one per 16 KiB (zlib's default).
    return gzip ? stored : gunzip(stored, { chunkSize: Math.max(length, 64) });
  };
  const loading: Promise<Buffer>[] = [];
  const readAhead = (index: number) => {
    const chunk = wanted[index];
    if (!chunk) return;
    const loaded = load(chunk);
    // Awaited in its turn; a download given up before then must not leave it unhandled.
    loaded.catch(() => undefined);
    loading.push(loaded);
  };
  for (let index = 0; index < CHUNKS_AHEAD; index++) readAhead(index);
  for (const [index, { offset, length }] of wanted.entries()) {
    const data = await loading.shift();
    if (!data) break;
    readAhead(index + CHUNKS_AHEAD);
    yield data.subarray(Math.max(0, start - offset), Math.min(length, end - offset));
  }
}

/**
 * `GET /exports/{id}/file`: the file, gzip-encoded when the client takes it, whole or one range
 * of it. Each encoding has its own strong ETag (a range counts the bytes of the encoding sent), so
 * `If-Range` resumes a download only on the bytes it began with.
 */
export async function sendExportFile(ctx: TenantContext, req: Request, res: Response, id: string) {
  const file = await openExportFile(ctx, id);
  const gzip = acceptsGzip(req.get('accept-encoding'));
  const size = gzip ? file.gzipSize : file.size;
  const etag = `"${file.row.id}.${file.runId}${gzip ? '.gzip' : ''}"`;
  const ifRange = req.get('if-range');
  const asked = ifRange === undefined || ifRange === etag ? req.get('range') : undefined;
  const range = byteRange(asked, size);
  if (range === 'unsatisfiable') {
    throw new AppError(
      416,
      'range_not_satisfiable',
      `The range ${asked ?? ''} starts past the end of the file (${size} bytes${gzip ? ', gzip-encoded' : ''}).`,
      { 'Content-Range': `bytes */${size}`, 'Accept-Ranges': 'bytes', ETag: etag },
    );
  }
  const sent = range ?? { start: 0, end: size };
  res.setHeader('Content-Type', EXPORT_CONTENT_TYPES[file.row.format]);
  res.setHeader(
    'Content-Disposition',
    `attachment; filename="${file.row.id}.${file.row.format === 'csv' ? 'csv' : 'ndjson'}"`,
  );
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('ETag', etag);
  res.setHeader('Vary', 'Accept-Encoding');
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  res.setHeader('Content-Length', String(sent.end - sent.start));
  if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end - 1}/${size}`);
  const body = Readable.from(fileBytes(ctx.em, file, gzip, sent), { highWaterMark: 1 });
  // A chunk that cannot be read once the status is sent: the client sees a cut-off body (its
  // Content-Length unmet), and resumes with a range.
  body.once('error', () => res.destroy());
  // ts-rest pipes a stream body into the response; the contract types the file as text.
  return { status: range ? (206 as const) : (200 as const), body: body as unknown as string };
}

/** The answer of a server that was given no export queue: it takes no exports. */
export const exportsUnavailable = () =>
  new AppError(503, 'service_unavailable', 'Exports are not available on this server', {
    'Retry-After': '60',
  });

/** Exports: made in the background by `queue`'s jobs; absent, this server makes none. */
export const exportsRouter = (queue: ExportQueue | undefined) =>
  s.router(contract.exports, {
    ...readHandlers({
      name: 'exports',
      list: listExports,
      get: getExport,
      render: toExportResource,
    }),
    create: ({ body, res }) =>
      write(res, async (tx) => {
        if (!queue) throw exportsUnavailable();
        return {
          status: 202 as const,
          body: { data: toExportResource(await createExport(tx, body, queue), tx.livemode) },
        };
      }),
    file: ({ params, req, res }) => sendExportFile(tenantOf(res), req, res, params.id),
  });
