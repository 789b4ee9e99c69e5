import type { APIPromise } from '../core/api-promise';
import { AbortError } from '../core/clock';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  ExportExpiredError,
  ExportFailedError,
  ExportFormatError,
  ExportTimeoutError,
  UnexpectedResponseError,
} from '../core/errors';
import type { OpenBody, RequestOptions } from '../internal/engine';
import { LineSplitter } from '../internal/lines';
import { Resource } from './shared';
import type {
  Attendee,
  AttendeeExportFilters,
  Checkin,
  CheckinExportFilters,
  Event,
  EventExportFilters,
  Export,
  ExportFormat,
  ExportListParams,
  ExportResource,
  Order,
  OrderExportFilters,
  Payout,
  PayoutExportFilters,
  Ticket,
  TicketExportFilters,
  Tier,
  TierExportFilters,
} from './types';

/** The filters each resource's export takes: those of its list, without paging. */
export interface ExportFilterParams {
  events: EventExportFilters;
  tiers: TierExportFilters;
  orders: OrderExportFilters;
  tickets: TicketExportFilters;
  attendees: AttendeeExportFilters;
  checkins: CheckinExportFilters;
  payouts: PayoutExportFilters;
}

/** The object of each resource's export rows: as that resource's list renders it. */
export interface ExportRows {
  events: Event;
  tiers: Tier;
  orders: Order;
  tickets: Ticket;
  attendees: Attendee;
  checkins: Checkin;
  payouts: Payout;
}

/** One row of an export of `R`: `ExportRow<'tickets'>` is a `Ticket`. */
export type ExportRow<R extends ExportResource> = ExportRows[R];

/** An export of `R`: `ExportOf<'tickets'>` has `resource: 'tickets'`, and `rows()` gives `Ticket`s. */
export type ExportOf<R extends ExportResource> = Export & { resource: R };

/** What `exports.create` takes: the list to copy, its filters (typed by `resource`), the format. */
export interface ExportCreateParams<R extends ExportResource = ExportResource> {
  /** Which list to export. */
  resource: R;
  /** That list's own filters (its query parameters but `page`, `limit` and `cursor`); none: all. */
  filters?: ExportFilterParams[R] | undefined;
  /** `ndjson` (the default) or `csv`. */
  format?: ExportFormat | undefined;
}

/** Options of `exports.waitUntilReady`: each look's request options, and how long to wait. */
export interface ExportWaitOptions extends RequestOptions {
  /** Milliseconds to wait for the export in all (an `ExportTimeoutError` after); 0: no limit. Default 1 800 000 (30 minutes). */
  timeoutMs?: number | undefined;
}

/** Options of `exports.rows`: the file's request options, and how often a broken download resumes. */
export interface ExportRowsOptions extends RequestOptions {
  /** How many times a download broken midway resumes where it stopped. Default 3. */
  maxResumes?: number | undefined;
}

/** The first look at an export waits this long; each next one half as long again, up to the cap. */
const FIRST_POLL_MS = 1_000;
const MAX_POLL_MS = 15_000;
/** Polling leaves this share of the key's reads to the rest of the program. */
const SPARE_READS = 0.2;

const identityEncoded = (response: Response) =>
  (response.headers.get('content-encoding') ?? 'identity').toLowerCase() === 'identity';

/**
 * A gzip body the `fetch` left encoded. Node's, Bun's, Deno's and browsers' `fetch` decode gzip
 * themselves; `DecompressionStream` cannot stand in for one that does not, as it refuses the
 * concatenated gzip members a file is sent as. Such a body is asked for again, unencoded.
 */
class LeftEncoded extends Error {}

/**
 * Exports: a whole list (with its filters) copied into one NDJSON or CSV file from one snapshot,
 * made in the background. `create`, then `waitUntilReady`, then `rows()` or `download()`; the
 * export's `sync_checkpoint` continues the sync on the list with `updated_since`.
 */
export class Exports extends Resource<Export, ExportListParams> {
  /**
   * Starts an export of one list: `filters` are that list's own (checked against `resource`), and
   * `format` is `ndjson` (the default) or `csv`. Resolves to the export, `pending`; counts as one
   * write. A fourth export while three are `pending` or `running` is a `ConflictError`
   * (`too_many_exports`).
   *
   * @example
   * ```ts
   * const exp = await client.exports.create({ resource: 'tickets', filters: { event_id: 'evt_…' } });
   * ```
   */
  create<R extends ExportResource>(
    body: ExportCreateParams<R>,
    options?: RequestOptions,
  ): APIPromise<ExportOf<R>> {
    return this.post<ExportCreateParams<R>, ExportOf<R>>(body, options);
  }

  /**
   * Looks at the export until it is `ready`, and resolves to it. The looks start a second apart
   * and grow to 15 s (with jitter), and wait for the next rate-limit window when less than a fifth
   * of the key's reads are left in this one. Throws an `ExportFailedError` (with its
   * `failureReason`) if it fails, an `ExportExpiredError` if its file is gone, an
   * `ExportTimeoutError` after `timeoutMs`, and an `APIUserAbortError` when `signal` aborts.
   *
   * @example
   * ```ts
   * const ready = await client.exports.waitUntilReady(exp.id, { timeoutMs: 600_000 });
   * console.log(ready.row_count, ready.sync_checkpoint);
   * ```
   */
  async waitUntilReady<R extends ExportResource = ExportResource>(
    exp: string | ExportOf<R>,
    options: ExportWaitOptions = {},
  ): Promise<ExportOf<R>> {
    const { timeoutMs = 1_800_000, ...request } = options;
    const { clock, random } = this.engine.config;
    const id = typeof exp === 'string' ? exp : exp.id;
    const deadline = timeoutMs > 0 ? clock.now() + timeoutMs : Infinity;
    for (let look = 0; ; look++) {
      const current = (await this.get(id, request)) as ExportOf<R>;
      if (current.status === 'ready') return current;
      if (current.status === 'failed') throw new ExportFailedError(current);
      if (current.status === 'expired') {
        throw new ExportExpiredError(id, current);
      }
      const now = clock.now();
      if (now >= deadline) {
        throw new ExportTimeoutError(
          id,
          `The export ${id} was still ${current.status} after ${timeoutMs} ms.`,
          current,
        );
      }
      const backoff = Math.min(FIRST_POLL_MS * 1.5 ** look, MAX_POLL_MS) * (1 - 0.25 * random());
      const wait = Math.min(Math.max(backoff, this.readWindowWait(now)), deadline - now);
      try {
        await clock.sleep(wait, request.signal);
      } catch (error) {
        if (error instanceof AbortError || request.signal?.aborted) throw new APIUserAbortError();
        throw error;
      }
    }
  }

  /** Until the read window ends, when polling would leave less than its share to other reads. */
  private readWindowWait(now: number): number {
    const { limit, remaining, resetAt } = this.engine.rateLimits.snapshot('read');
    if (limit === undefined || remaining === undefined || resetAt === undefined) return 0;
    return remaining < limit * SPARE_READS ? resetAt - now : 0;
  }

  /**
   * Every row of a `ready` NDJSON export, typed by its resource (`Ticket`s for a tickets export,
   * from the export given or `rows<'tickets'>(id)`), read as the file arrives: nothing holds the
   * whole file. Asks for gzip. A download broken midway resumes after the last whole row (a
   * `Range` request, with `If-Range`), up to `maxResumes` times. A CSV export is an
   * `ExportFormatError` (download it with `download()`); one not ready yet, a `ConflictError`
   * (`export_not_ready`); one whose file is gone, an `ExportExpiredError`.
   *
   * @example
   * ```ts
   * for await (const ticket of client.exports.rows(ready)) console.log(ticket.code);
   * ```
   */
  async *rows<R extends ExportResource = ExportResource>(
    exp: string | ExportOf<R>,
    options: ExportRowsOptions = {},
  ): AsyncGenerator<ExportRow<R>, void, undefined> {
    const { maxResumes = 3, ...request } = options;
    const id = typeof exp === 'string' ? exp : exp.id;
    if (typeof exp !== 'string' && exp.format !== 'ndjson') throw this.notNdjson(id, exp.format);
    const lines = new LineSplitter();
    // The identity representation's validator, once an answer has given it.
    let etag: string | undefined;
    let gzip = true;
    for (let resumes = 0; ; resumes++) {
      const from = lines.consumed;
      const headers: Record<string, string> =
        from === 0
          ? { 'accept-encoding': gzip ? 'gzip' : 'identity' }
          : {
              'accept-encoding': 'identity',
              range: `bytes=${from}-`,
              ...(etag !== undefined && { 'if-range': etag }),
            };
      let opened: OpenBody;
      try {
        opened = await this.engine.open(
          { method: 'GET', path: `${this.path}/:id/file` },
          { params: { id } },
          { ...request, headers: { ...headers, ...request.headers } },
        );
      } catch (error) {
        if (from > 0 && error instanceof APIError && error.status === 416) {
          // The break came right after the last row: nothing is left to read.
          if (contentRangeSize(error.headers) === from) return;
        }
        throw this.expiredOr(id, error);
      }
      const { response } = opened;
      try {
        const type = response.headers.get('content-type') ?? '';
        if (type.startsWith('text/csv')) throw this.notNdjson(id, 'csv');
        let skip = 0;
        if (from > 0 && response.status === 206) {
          const start = /^bytes (\d+)-/.exec(response.headers.get('content-range') ?? '')?.[1];
          if (Number(start) !== from || !identityEncoded(response)) {
            throw unexpected(response, `not the range asked for (bytes=${from}-, unencoded)`);
          }
        } else if (from > 0) {
          // The whole file again (the validator did not match): its first rows were read already.
          skip = from;
        }
        if (identityEncoded(response)) etag = response.headers.get('etag') ?? etag;
        for await (const chunk of this.chunks(opened, request)) {
          let bytes = chunk;
          if (skip > 0) {
            const dropped = Math.min(skip, bytes.byteLength);
            skip -= dropped;
            bytes = bytes.subarray(dropped);
          }
          for (const line of lines.push(bytes)) {
            if (line.trim() !== '') yield this.parse(line, id) as ExportRow<R>;
          }
        }
        const last = lines.end();
        if (last !== undefined && last.trim() !== '') yield this.parse(last, id) as ExportRow<R>;
        return;
      } catch (error) {
        if (error instanceof LeftEncoded && gzip) {
          gzip = false;
          resumes -= 1;
          continue;
        }
        if (error instanceof LeftEncoded) {
          throw unexpected(response, 'gzip-encoded though asked for unencoded');
        }
        if (!(error instanceof APIConnectionError) || resumes >= maxResumes) throw error;
        lines.dropPartial();
        this.engine.config.logger.info(
          `boxoffice: the file of export ${id} broke off after ${lines.consumed} bytes (${error.message}); resuming (${resumes + 1} of ${maxResumes})`,
        );
      } finally {
        opened.done();
      }
    }
  }

  /**
   * The export's file as a `Response` whose body is not read yet: for writing it to a file as it
   * arrives, a CSV export's included. `fetch` decodes gzip itself. Errors as `rows()`.
   *
   * @example
   * ```ts
   * import { createWriteStream } from 'node:fs';
   * import { Readable } from 'node:stream';
   * import { pipeline } from 'node:stream/promises';
   *
   * const response = await client.exports.download(ready.id);
   * await pipeline(Readable.fromWeb(response.body!), createWriteStream('tickets.ndjson'));
   * ```
   */
  async download(exp: string | Export, options?: RequestOptions): Promise<Response> {
    const id = typeof exp === 'string' ? exp : exp.id;
    try {
      const { response } = await this.engine.open(
        { method: 'GET', path: `${this.path}/:id/file` },
        { params: { id } },
        options,
      );
      return response;
    } catch (error) {
      throw this.expiredOr(id, error);
    }
  }

  /**
   * The decoded body's chunks. A read that waits longer than the request's `timeout` gives up on
   * the body (an `APIConnectionTimeoutError`); a broken body is an `APIConnectionError`: both are
   * resumed.
   */
  private async *chunks(
    opened: OpenBody,
    options: RequestOptions,
  ): AsyncGenerator<Uint8Array, void, undefined> {
    const { response } = opened;
    if (response.body === null) return;
    const timeout = options.timeout ?? this.engine.config.timeout;
    let stalled = false;
    const read = async <T>(reading: Promise<T>): Promise<T> => {
      if (options.signal?.aborted) {
        // The body fails too, once the signal has reached it: nothing is left to hear that.
        reading.catch(() => undefined);
        throw new APIUserAbortError();
      }
      const timer = setTimeout(() => {
        stalled = true;
        opened.abort();
      }, timeout);
      try {
        return await reading;
      } catch (error) {
        if (options.signal?.aborted) throw new APIUserAbortError();
        if (stalled) {
          throw new APIConnectionTimeoutError({
            message: `Request timed out: the file of ${response.url} sent nothing for ${timeout} ms.`,
            url: response.url,
          });
        }
        throw new APIConnectionError({ cause: error, url: response.url });
      } finally {
        clearTimeout(timer);
      }
    };
    const reader = response.body.getReader();
    let finished = false;
    try {
      for (let first = true; ; first = false) {
        const { done, value } = await read(reader.read());
        if (done) {
          finished = true;
          return;
        }
        // JSON never starts with the control character 1f, gzip's first byte.
        if (first && value[0] === 0x1f) throw new LeftEncoded();
        yield value;
      }
    } finally {
      // A loop that stops early lets go of the connection.
      if (!finished) await reader.cancel().catch(() => undefined);
    }
  }

  private parse(line: string, id: string): unknown {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      throw new UnexpectedResponseError({
        status: 200,
        headers: new Headers(),
        body: line.length > 500 ? `${line.slice(0, 500)}…` : line,
        url: `${this.engine.url({ method: 'GET', path: `${this.path}/:id/file` }, { params: { id } })}`,
        problem: 'a line that is not JSON',
      });
    }
  }

  private notNdjson(id: string, format: string): ExportFormatError {
    return new ExportFormatError(
      id,
      `rows() reads NDJSON exports; the export ${id} is ${format}: download its file with exports.download().`,
    );
  }

  /** A 410 as the `ExportExpiredError` it is; any other error as it was. */
  private expiredOr(id: string, error: unknown): unknown {
    if (!(error instanceof APIError) || error.status !== 410) return error;
    return new ExportExpiredError(id, undefined, { cause: error });
  }
}

/** A file answer that is not what was asked for. */
const unexpected = (response: Response, problem: string) =>
  new UnexpectedResponseError({
    status: response.status,
    headers: response.headers,
    body: '',
    url: response.url,
    problem,
  });

/** The full size a 416's `Content-Range: bytes *\/<size>` gives. */
function contentRangeSize(headers: Headers | undefined): number | undefined {
  const size = /^bytes \*\/(\d+)$/.exec(headers?.get('content-range') ?? '')?.[1];
  return size === undefined ? undefined : Number(size);
}
