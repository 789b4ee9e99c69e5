import { gzipSync } from 'node:zlib';
import { contract } from '@boxoffice/contract';
import { describe, expect, it } from 'vitest';
import { harness, TEST_BASE_URL } from '../../test/harness';
import { error, item, json, rateLimitHeaders, type Reply } from '../../test/scripted-fetch';
import {
  APIConnectionError,
  APIUserAbortError,
  ConflictError,
  ExportExpiredError,
  ExportFailedError,
  ExportFormatError,
  ExportTimeoutError,
  type Export,
  type ExportOf,
  type Ticket,
} from '../index';

const exportOf = (fields: Partial<Export> = {}): ExportOf<'tickets'> => ({
  id: 'exp_1',
  filters: { event_id: 'evt_1' },
  format: 'ndjson',
  status: 'pending',
  row_count: null,
  size_bytes: null,
  sync_checkpoint: null,
  completed_at: null,
  expires_at: null,
  failure_reason: null,
  created_at: '2030-01-01T00:00:00.000Z',
  updated_at: '2030-01-01T00:00:00.000Z',
  livemode: true,
  ...fields,
  resource: 'tickets',
});

/** Ticket-shaped rows, with names outside ASCII so that chunks can end inside a character. */
const rows = Array.from({ length: 6 }, (_, i) => ({
  id: `tkt_${i}`,
  object: 'ticket',
  code: `CODE${i}`,
  holder: ['Zoë Ångström', '李小龍', 'Siobhán 🎟️', 'plain'][i % 4],
}));
const file = rows.map((row) => `${JSON.stringify(row)}\n`).join('');
const fileBytes = new TextEncoder().encode(file);
const ETAG = '"exp_1-v1"';

/** `bytes` in chunks of `size`; the stream then ends, or breaks with `breakWith`. */
function chunked(bytes: Uint8Array, size: number, breakWith?: Error): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.byteLength) {
        if (breakWith) controller.error(breakWith);
        else controller.close();
        return;
      }
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

/** An NDJSON file answer: `body` as given, with the file's headers. */
const fileReply =
  (
    body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer>,
    options: { status?: number; headers?: Record<string, string> } = {},
  ): Reply =>
  () =>
    new Response(body, {
      status: options.status ?? 200,
      headers: {
        'content-type': 'application/x-ndjson',
        'accept-ranges': 'bytes',
        etag: ETAG,
        ...options.headers,
      },
    });

/** The file from the `Range` the request asks for, as a 206, in chunks of `size`. */
const rangeReply =
  (size = 7): Reply =>
  (request) => {
    const from = Number(/^bytes=(\d+)-$/.exec(request.headers.range ?? '')?.[1]);
    expect(from).toBeGreaterThan(0);
    return fileReply(chunked(fileBytes.subarray(from), size), {
      status: 206,
      headers: {
        'content-range': `bytes ${from}-${fileBytes.byteLength - 1}/${fileBytes.byteLength}`,
      },
    })(request);
  };

/** A body that sends `bytes`, then nothing more until the request's signal aborts it. */
const stalling =
  (bytes: Uint8Array): Reply =>
  (request) =>
    fileReply(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes);
          request.signal?.addEventListener('abort', () => controller.error(request.signal?.reason));
        },
      }),
    )(request);

const terminated = () => new TypeError('terminated', { cause: new Error('other side closed') });

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const value of iterable) out.push(value);
  return out;
}

describe('exports.create, get and list', () => {
  it('has a method for each of the contract’s exports routes, on its method and path', async () => {
    const { client, script } = harness(
      {},
      item(exportOf(), 202),
      json(200, { data: [], total: 0, page: 1, limit: 20, next_cursor: null }),
      item(exportOf()),
      fileReply(fileBytes),
    );
    await client.exports.create({ resource: 'tickets' });
    await client.exports.list();
    await client.exports.get('exp_1');
    await client.exports.download('exp_1');
    const sent = script.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`);
    const routes = [
      contract.exports.create,
      contract.exports.list,
      contract.exports.get,
      contract.exports.file,
    ];
    expect(sent).toEqual(
      routes.map((route) => `${route.method} /api/v1${route.path.replace(':id', 'exp_1')}`),
    );
    expect(Object.keys(contract.exports).sort()).toEqual(['create', 'file', 'get', 'list']);
  });

  it('creates an export of a list with its filters, as one POST with an idempotency key', async () => {
    const { client, script } = harness({}, item(exportOf(), 202));
    const exp = await client.exports.create({
      resource: 'tickets',
      filters: { event_id: 'evt_1', status: ['valid'] },
    });
    expect(exp.id).toBe('exp_1');
    expect(exp.resource).toBe('tickets');
    const [sent] = script.requests;
    expect(sent).toMatchObject({
      method: 'POST',
      url: `${TEST_BASE_URL}/exports`,
      body: { resource: 'tickets', filters: { event_id: 'evt_1', status: ['valid'] } },
    });
    expect(sent!.headers['idempotency-key']).toMatch(/^sdk_/);
  });

  it('lists exports with the pagination iterators of every list', async () => {
    const page = (data: Export[], next: string | null) =>
      json(200, {
        data,
        total: 3,
        page: 1,
        limit: 2,
        next_cursor: next,
        sync_checkpoint: '2030-01-01T00:00:00.000Z',
      });
    const { client, script } = harness(
      {},
      page([exportOf({ id: 'exp_1' }), exportOf({ id: 'exp_2' })], 'c2'),
      page([exportOf({ id: 'exp_3' })], null),
    );
    const ids = (await collect(client.exports.list({ status: 'ready', limit: 2 }))).map(
      (e) => e.id,
    );
    expect(ids).toEqual(['exp_1', 'exp_2', 'exp_3']);
    expect(script.requests.map((r) => r.url.slice(TEST_BASE_URL.length))).toEqual([
      '/exports?status=ready&limit=2',
      '/exports?status=ready&limit=2&cursor=c2',
    ]);
  });
});

describe('exports.rows', () => {
  it.each([1, 2, 3, 5, 64, 4096])(
    'parses each line once, whatever the chunks (%i bytes: lines and characters split)',
    async (size) => {
      const { client, script } = harness({}, fileReply(chunked(fileBytes, size)));
      const got = await collect(client.exports.rows<'tickets'>('exp_1'));
      expect(got).toEqual(rows);
      expect(script.requests).toHaveLength(1);
      expect(script.requests[0]!.url).toBe(`${TEST_BASE_URL}/exports/exp_1/file`);
      expect(script.requests[0]!.headers['accept-encoding']).toBe('gzip');
    },
  );

  it('types the rows by the export’s resource', async () => {
    const { client } = harness({}, fileReply(fileBytes));
    const exp = exportOf({ status: 'ready' });
    const codes: string[] = [];
    for await (const ticket of client.exports.rows(exp)) {
      const typed: Ticket = ticket;
      codes.push(typed.code);
    }
    expect(codes).toEqual(rows.map((row) => row.code));
  });

  it('asks again without gzip when the fetch leaves a gzip body encoded', async () => {
    const half = file.indexOf('\n', file.length / 2) + 1;
    // Two gzip members, as a file is sent chunk by chunk: what DecompressionStream refuses.
    const gzipped = new Uint8Array([
      ...gzipSync(file.slice(0, half)),
      ...gzipSync(file.slice(half)),
    ]);
    const { client, script } = harness(
      {},
      fileReply(chunked(gzipped, 13), { headers: { 'content-encoding': 'gzip' } }),
      fileReply(chunked(fileBytes, 13)),
    );
    expect(await collect(client.exports.rows('exp_1'))).toEqual(rows);
    expect(script.requests.map((r) => r.headers['accept-encoding'])).toEqual(['gzip', 'identity']);
    expect(script.requests[1]!.headers.range).toBeUndefined();
  });

  it('reads a last line without a line end, and skips blank lines', async () => {
    const text = `${JSON.stringify(rows[0])}\r\n\n${JSON.stringify(rows[1])}`;
    const { client } = harness({}, fileReply(new TextEncoder().encode(text)));
    expect(await collect(client.exports.rows('exp_1'))).toEqual([rows[0], rows[1]]);
  });

  it('resumes a broken download after the last whole line, with Range and If-Range', async () => {
    // The first answer breaks inside the fourth line, inside one of its characters.
    const cut = fileBytes.indexOf(0xc3, fileBytes.indexOf(0x0a, 150)) + 1;
    const wholeLines = fileBytes.lastIndexOf(0x0a, cut) + 1;
    const { client, script, logger } = harness(
      {},
      fileReply(chunked(fileBytes.subarray(0, cut), 5, terminated())),
      rangeReply(),
    );
    const got = await collect(client.exports.rows('exp_1'));
    expect(got).toEqual(rows);
    expect(script.requests).toHaveLength(2);
    expect(script.requests[1]!.headers).toMatchObject({
      range: `bytes=${wholeLines}-`,
      'if-range': ETAG,
      'accept-encoding': 'identity',
    });
    expect(logger.lines.map((l) => l.message).join('\n')).toMatch(
      new RegExp(`export exp_1 broke off after ${wholeLines} bytes.*resuming \\(1 of 3\\)`),
    );
  });

  it('resumes a gzip download on the identity file, with its validator once known', async () => {
    // As Node's fetch hands a gzip answer over: decoded, its headers those of the gzip file.
    const gzipHeaders = { 'content-encoding': 'gzip', etag: '"exp_1-gzip"' };
    const firstLine = fileBytes.indexOf(0x0a) + 1;
    const secondLine = fileBytes.indexOf(0x0a, firstLine) + 1;
    const { client, script } = harness(
      {},
      fileReply(chunked(fileBytes.subarray(0, firstLine + 4), 4, terminated()), {
        headers: gzipHeaders,
      }),
      // The identity file from the first whole line on, breaking again after another line.
      fileReply(chunked(fileBytes.subarray(firstLine, secondLine + 2), 9, terminated()), {
        status: 206,
        headers: {
          'content-range': `bytes ${firstLine}-${fileBytes.byteLength - 1}/${fileBytes.byteLength}`,
        },
      }),
      rangeReply(),
    );
    const got = await collect(client.exports.rows('exp_1'));
    expect(got).toEqual(rows);
    const [, second, third] = script.requests;
    // The gzip file's validator would not match the identity file: none is sent.
    expect(second!.headers).toMatchObject({ range: `bytes=${firstLine}-` });
    expect(second!.headers['if-range']).toBeUndefined();
    expect(third!.headers).toMatchObject({ range: `bytes=${secondLine}-`, 'if-range': ETAG });
  });

  it('skips what it has when a resumed answer is the whole file again (the validator did not match)', async () => {
    const breakAfter = fileBytes.indexOf(0x0a, fileBytes.indexOf(0x0a) + 1) + 1;
    const { client } = harness(
      {},
      fileReply(chunked(fileBytes.subarray(0, breakAfter + 3), 8, terminated())),
      fileReply(chunked(fileBytes, 11)),
    );
    expect(await collect(client.exports.rows('exp_1'))).toEqual(rows);
  });

  it('ends when the break came after the last line (416 past the end)', async () => {
    const { client } = harness(
      {},
      fileReply(chunked(fileBytes, 16, terminated())),
      error(416, 'Range not satisfiable', {
        code: 'range_not_satisfiable',
        headers: { 'content-range': `bytes */${fileBytes.byteLength}` },
      }),
    );
    expect(await collect(client.exports.rows('exp_1'))).toEqual(rows);
  });

  it('gives up after maxResumes broken downloads, with the connection error', async () => {
    const breaking: Reply = (request) =>
      fileReply(chunked(fileBytes.subarray(0, 10), 10, terminated()))(request);
    const { client, script } = harness({ fallback: breaking });
    await expect(collect(client.exports.rows('exp_1', { maxResumes: 2 }))).rejects.toBeInstanceOf(
      APIConnectionError,
    );
    expect(script.requests).toHaveLength(3);
  });

  it('resumes a download that stalls for longer than the timeout', async () => {
    const first = fileBytes.indexOf(0x0a) + 1;
    const { client, script } = harness(
      { timeout: 50 },
      stalling(fileBytes.subarray(0, first + 3)),
      rangeReply(),
    );
    expect(await collect(client.exports.rows('exp_1'))).toEqual(rows);
    expect(script.requests[1]!.headers.range).toBe(`bytes=${first}-`);
  });

  it('stops reading when its signal aborts, and when the loop stops early', async () => {
    const controller = new AbortController();
    const { client, script } = harness({}, stalling(fileBytes.subarray(0, 80)));
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const row of client.exports.rows('exp_1', { signal: controller.signal })) {
          seen.push(row);
          controller.abort();
        }
      })(),
    ).rejects.toBeInstanceOf(APIUserAbortError);
    expect(seen).toHaveLength(1);
    expect(script.requests).toHaveLength(1);

    let cancelled = false;
    const body = chunked(fileBytes, 3);
    const watched = new ReadableStream<Uint8Array>({
      pull: async (c) => {
        const reader = body.getReader();
        const { done, value } = await reader.read();
        reader.releaseLock();
        if (done) c.close();
        else c.enqueue(value);
      },
      cancel: () => {
        cancelled = true;
      },
    });
    const { client: other } = harness({}, fileReply(watched));
    for await (const row of other.exports.rows('exp_1')) {
      expect(row).toEqual(rows[0]);
      break;
    }
    expect(cancelled).toBe(true);
  });

  it('refuses a CSV export: rows() reads NDJSON exports', async () => {
    const { client, script } = harness(
      {},
      fileReply(new TextEncoder().encode('id,code\r\ntkt_1,A\r\n'), {
        headers: { 'content-type': 'text/csv; charset=utf-8' },
      }),
    );
    const csv = exportOf({ format: 'csv', status: 'ready' });
    await expect(collect(client.exports.rows(csv))).rejects.toThrow(
      /rows\(\) reads NDJSON exports; the export exp_1 is csv/,
    );
    expect(script.requests).toHaveLength(0);
    // Known only from the file's type: refused on its headers, before any row.
    await expect(collect(client.exports.rows('exp_1'))).rejects.toBeInstanceOf(ExportFormatError);
  });

  it('throws a ConflictError for an export not ready, and an ExportExpiredError for one removed', async () => {
    const { client } = harness(
      {},
      error(409, 'The export is not ready yet', { code: 'export_not_ready' }),
      error(410, 'The export has expired', { code: 'export_expired' }),
    );
    const notReady = await collect(client.exports.rows('exp_1')).catch((e: unknown) => e);
    expect(notReady).toBeInstanceOf(ConflictError);
    expect(notReady).toMatchObject({ code: 'export_not_ready' });
    const gone = await collect(client.exports.rows('exp_1')).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ExportExpiredError);
    expect(gone).toMatchObject({ exportId: 'exp_1' });
  });

  it('names a line that is not JSON', async () => {
    const { client } = harness({}, fileReply(new TextEncoder().encode('{"id":"tkt_1"}\n{"id":\n')));
    await expect(collect(client.exports.rows('exp_1'))).rejects.toThrow(/a line that is not JSON/);
  });
});

describe('exports.download', () => {
  it('answers the file as a Response whose body is still to be read', async () => {
    const { client, script } = harness({}, fileReply(chunked(fileBytes, 10)));
    const response = await client.exports.download('exp_1');
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    expect(response.bodyUsed).toBe(false);
    expect(await response.text()).toBe(file);
    expect(script.requests[0]!.url).toBe(`${TEST_BASE_URL}/exports/exp_1/file`);
  });
});

describe('exports.waitUntilReady', () => {
  const look = (status: Export['status'], fields: Partial<Export> = {}, headers = {}) =>
    item(exportOf({ status, ...fields }), 200, headers);

  it('looks again after 1 s, then half as long again each time up to 15 s, until ready', async () => {
    const { client, clock, script } = harness(
      {},
      ...Array.from({ length: 9 }, (_, i) => look(i === 0 ? 'pending' : 'running')),
      look('ready', { row_count: 6, sync_checkpoint: '2030-01-01T00:00:00.000Z' }),
    );
    const ready = await client.exports.waitUntilReady('exp_1');
    expect(ready).toMatchObject({ status: 'ready', row_count: 6 });
    expect(script.requests).toHaveLength(10);
    expect(clock.sleeps).toEqual([
      1000, 1500, 2250, 3375, 5062.5, 7593.75, 11390.625, 15000, 15000,
    ]);
  });

  it('jitters each wait by up to a quarter, so clients that started together spread out', async () => {
    const { client, clock } = harness(
      { random: () => 0.5 },
      look('pending'),
      look('running'),
      look('ready'),
    );
    await client.exports.waitUntilReady('exp_1');
    expect(clock.sleeps).toEqual([875, 1312.5]);
  });

  it('waits for the next read window when less than a fifth of the reads are left', async () => {
    const { client, clock } = harness(
      {},
      look('running', {}, rateLimitHeaders(60, 30, 40)),
      look('running', {}, rateLimitHeaders(60, 5, 38)),
      look('ready'),
    );
    await client.exports.waitUntilReady('exp_1');
    // 5 of 60 left: the second wait lasts until the window ends (38 s on), not 1.5 s.
    expect(clock.sleeps[0]).toBe(1000);
    expect(clock.sleeps[1]).toBeGreaterThanOrEqual(37_000);
  });

  it('throws an ExportFailedError with the failure reason', async () => {
    const { client } = harness(
      {},
      look('running'),
      look('failed', { failure_reason: 'The database could not be read.' }),
    );
    const failed = await client.exports.waitUntilReady('exp_1').catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ExportFailedError);
    expect(failed).toMatchObject({
      exportId: 'exp_1',
      failureReason: 'The database could not be read.',
      message: 'The export exp_1 failed: The database could not be read..',
    });
  });

  it('throws an ExportExpiredError for an export whose file is gone', async () => {
    const { client } = harness({}, look('expired'));
    await expect(client.exports.waitUntilReady('exp_1')).rejects.toBeInstanceOf(ExportExpiredError);
  });

  it('gives up after timeoutMs with an ExportTimeoutError', async () => {
    const { client, script, start, clock } = harness({ fallback: look('running') });
    const late = await client.exports
      .waitUntilReady('exp_1', { timeoutMs: 10_000 })
      .catch((e: unknown) => e);
    expect(late).toBeInstanceOf(ExportTimeoutError);
    expect((late as ExportTimeoutError).export?.status).toBe('running');
    expect(clock.now() - start).toBe(10_000);
    // 1 + 1.5 + 2.25 + 3.375 s, then what is left of the 10 s, then one last look.
    expect(script.requests).toHaveLength(6);
  });

  it('stops waiting when its signal aborts', async () => {
    const controller = new AbortController();
    const { client, clock, script } = harness({ auto: false, fallback: look('running') });
    const waiting = client.exports.waitUntilReady('exp_1', { signal: controller.signal });
    await clock.sleepsAsked(1);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(APIUserAbortError);
    expect(script.requests).toHaveLength(1);
  });
});
