import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  EXPORT_FILTER_SCHEMAS,
  SYNC_OVERLAP_SECONDS,
  type ExportResource,
} from '@boxoffice/contract';
import type { PoolClient } from 'pg';
import type { TenantContext } from '../../core/context';
import { randomBase62 } from '../../core/ids';
import { TextBuffer } from '../../core/text-buffer';
import { inSnapshot } from '../../db/driver';
import { streamRows, type Sortable } from '../../db/pages';
import type { ResourceList } from '../../db/resource-list';
import { attendeeList, toAttendeeResource } from '../attendees/attendee.service';
import { checkinList, toCheckinResource } from '../checkins/checkin.service';
import { eventList, toEventResource } from '../events/event.service';
import { orderList, toOrderResource } from '../orders/order.service';
import { payoutList, toPayoutResource } from '../payouts/payout.service';
import { ticketList, toTicketResource } from '../tickets/ticket.service';
import { tierList, toTierResource } from '../tiers/tier.service';
import { rowWriter } from './export-format';
import {
  deleteOtherRuns,
  finishRun,
  insertChunk,
  startRun,
  type ExportRun,
} from './export.repository';

// zlib's asynchronous calls compress on libuv's thread pool, off the event loop.
const gzip = promisify(gzipCallback);

/** About this much text (UTF-8 bytes) per chunk of a file. */
export const CHUNK_BYTES = 1024 * 1024;
/** Rows fetched from the list's cursor at once. */
const FETCH_ROWS = 1000;

/** How the rows of a list are read and rendered: by the list's own functions. */
interface ListExport {
  read(client: PoolClient, ctx: TenantContext, filters: unknown): AsyncGenerator<unknown[]>;
  render(row: unknown, livemode: boolean): unknown;
}

const listExport = <F, T extends Sortable>(
  list: ResourceList<T, F>,
  render: (row: T, livemode: boolean) => unknown,
): ListExport => ({
  // The filters are the contract's parse of this list's filters (`EXPORT_FILTER_SCHEMAS`).
  read: (client, ctx, filters) =>
    streamRows(ctx.em, client, list.rows(ctx, filters as F), FETCH_ROWS),
  render: (row, livemode) => render(row as T, livemode),
});

/**
 * Each resource's list: which rows its filters select, in its order, and how each is rendered, by
 * the functions its own pages use.
 */
const LISTS: Record<ExportResource, ListExport> = {
  events: listExport(eventList, toEventResource),
  tiers: listExport(tierList, toTierResource),
  orders: listExport(orderList, toOrderResource),
  tickets: listExport(ticketList, toTicketResource),
  attendees: listExport(attendeeList, toAttendeeResource),
  checkins: listExport(checkinList, toCheckinResource),
  payouts: listExport(payoutList, toPayoutResource),
};

export interface RunOptions {
  /** How long a file is kept once made. */
  retentionMs: number;
  /** Text per chunk; CHUNK_BYTES unless a test wants many chunks of a small file. */
  chunkBytes?: number;
}

export type RunOutcome = 'ready' | 'skipped' | 'superseded';

/**
 * Makes the file of export `id`, from scratch: a run of its own (`run_id`), chunks of earlier runs
 * deleted. The rows come from one snapshot (a read-only REPEATABLE READ transaction), read through
 * a cursor in batches, rendered and written ~1 MiB at a time, each chunk gzip-compressed as one
 * member; memory stays flat whatever the list's size. `skipped`: the export is not waiting to be
 * made (done, failed, expired or gone); `superseded`: another run took it over meanwhile.
 */
export async function runExport(
  em: EntityManager,
  id: string,
  options: RunOptions,
): Promise<RunOutcome> {
  const runId = randomBase62(12);
  const run = await startRun(em, id, runId, new Date());
  if (!run) return 'skipped';
  await deleteOtherRuns(em, id, runId);
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  const file = new ChunkedFile(em, id, runId, chunkBytes);
  const writer = rowWriter(run.resource, run.format);
  file.add(writer.header());
  let rowCount = 0;
  const snapshotAt = await inSnapshot(em, async (client) => {
    // The snapshot is taken at the transaction's first statement, which follows at once: a write
    // that misses it commits after this moment, so its stamp is at most the overlap before it.
    const at = Date.now();
    for await (const batch of readRows(em, client, run)) {
      for (const row of batch) {
        file.add(writer.line(LISTS[run.resource].render(row, run.livemode)));
        rowCount += 1;
        if (file.buffered >= chunkBytes) await file.flush();
      }
    }
    return at;
  });
  await file.flush();
  const completedAt = new Date();
  const finished = await finishRun(em, id, runId, {
    rowCount,
    sizeBytes: file.rawOffset,
    gzipSizeBytes: file.gzipOffset,
    syncCheckpoint: new Date(snapshotAt - SYNC_OVERLAP_SECONDS * 1000),
    completedAt,
    expiresAt: new Date(completedAt.getTime() + options.retentionMs),
  });
  if (!finished) return 'superseded';
  // Chunks a run that lost the export wrote after this one started are not the file.
  await deleteOtherRuns(em, id, runId);
  return 'ready';
}

/** The list's rows in the snapshot of `client`'s transaction, as its filters select them. */
function readRows(em: EntityManager, client: PoolClient, run: ExportRun) {
  const ctx: TenantContext = { em, organisationId: run.organisationId, livemode: run.livemode };
  // The stored filters are the contract's parse, written as JSON: parsed again, they are typed.
  const filters: unknown = EXPORT_FILTER_SCHEMAS[run.resource].parse(run.filters);
  return LISTS[run.resource].read(client, ctx, filters);
}

/**
 * A file written chunk by chunk into `export_chunks`, with each chunk's offsets. The text of the
 * chunk being made is written into one buffer, reused from chunk to chunk: the lines do not wait
 * as strings, and no chunk leaves a megabyte of garbage outside the heap (during an export of
 * 300,000 tickets, external memory peaked at 40–47 MB with one buffer per chunk, ≤ 19 MB now).
 */
class ChunkedFile {
  readonly #em: EntityManager;
  readonly #id: string;
  readonly #runId: string;
  readonly #text: TextBuffer;
  #seq = 0;
  rawOffset = 0;
  gzipOffset = 0;

  constructor(em: EntityManager, id: string, runId: string, chunkBytes: number) {
    this.#em = em;
    this.#id = id;
    this.#runId = runId;
    this.#text = new TextBuffer(chunkBytes + 64 * 1024);
  }

  /** Bytes of the chunk being made. */
  get buffered(): number {
    return this.#text.length;
  }

  add(text: string): void {
    this.#text.write(text);
  }

  /** Writes what is buffered as the next chunk (nothing when nothing is). */
  async flush(): Promise<void> {
    const rawSize = this.buffered;
    if (rawSize === 0) return;
    // The buffer is written to again only once its chunk is compressed and stored. Compressed in
    // one or two steps of the thread pool (the text shrinks to a quarter or less), not one per
    // 16 KiB of output (zlib's default).
    const data = await gzip(this.#text.bytes, {
      chunkSize: Math.max(64, rawSize >> 1),
    });
    await insertChunk(this.#em, {
      exportId: this.#id,
      runId: this.#runId,
      seq: this.#seq,
      rawOffset: this.rawOffset,
      rawSize,
      gzipOffset: this.gzipOffset,
      data,
    });
    this.#text.clear();
    this.#seq += 1;
    this.rawOffset += rawSize;
    this.gzipOffset += data.length;
  }
}
