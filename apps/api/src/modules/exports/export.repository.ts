import type { EntityManager } from '@mikro-orm/postgresql';
import type { ExportFormat, ExportResource } from '@boxoffice/contract';
import { exec, statement } from '../../db/driver';

/** Every statement on `exports` beside the ORM's, and every one on `export_chunks`. */

/**
 * The organisation's export lock, held until the transaction ends: two requests at once cannot
 * both see room for one more. The count is a statement of its own, after it: a statement sees the
 * rows committed when it began, before it waited.
 */
const LOCK_EXPORTS = statement<never, { organisationId: string }>(
  `select pg_advisory_xact_lock(hashtextextended('exports:' || $1, 0))`,
  (v) => [v.organisationId],
);

const COUNT_ACTIVE = statement<{ active: string }, { organisationId: string }>(
  `select count(*) as active from "exports"
    where "organisation_id" = $1 and "status" in ('pending', 'running')`,
  (v) => [v.organisationId],
);

/** Takes the organisation's export lock, then counts its exports not yet done. */
export async function lockAndCountActive(em: EntityManager, organisationId: string) {
  await exec(em, LOCK_EXPORTS, { organisationId });
  const [row] = await exec(em, COUNT_ACTIVE, { organisationId });
  return Number(row?.active ?? 0);
}

/** What a run of an export's job needs to know of it. */
export interface ExportRun {
  organisationId: string;
  resource: ExportResource;
  filters: Record<string, unknown>;
  format: ExportFormat;
  livemode: boolean;
}

/**
 * Starts a run of an export not yet done: `running`, under `runId` (a run started before and
 * never finished, its process gone, is replaced). None when it is done, failed or gone.
 */
const START_RUN = statement<ExportRun, { id: string; runId: string; at: Date }>(
  `update "exports" set "status" = 'running', "run_id" = $2, "updated_at" = $3
    where "id" = $1 and "status" in ('pending', 'running')
    returning "organisation_id" as "organisationId", "resource", "filters", "format", "livemode"`,
  (v) => [v.id, v.runId, v.at],
);

export const startRun = async (em: EntityManager, id: string, runId: string, at: Date) =>
  (await exec(em, START_RUN, { id, runId, at }))[0];

/** The chunks other runs of an export wrote: a run starts and ends with none but its own. */
const DELETE_OTHER_RUNS = statement<never, { id: string; runId: string }>(
  `delete from "export_chunks" where "export_id" = $1 and "run_id" <> $2`,
  (v) => [v.id, v.runId],
);

export const deleteOtherRuns = (em: EntityManager, id: string, runId: string) =>
  exec(em, DELETE_OTHER_RUNS, { id, runId });

/** One chunk of a file: its text gzip-compressed, one gzip member, and where it lies. */
export interface NewChunk {
  exportId: string;
  runId: string;
  seq: number;
  rawOffset: number;
  rawSize: number;
  gzipOffset: number;
  data: Buffer;
}

const INSERT_CHUNK = statement<never, NewChunk>(
  `insert into "export_chunks"
     ("export_id", "run_id", "seq", "raw_offset", "raw_size", "gzip_offset", "gzip_size", "data")
   values ($1, $2, $3, $4, $5, $6, $7, $8)`,
  (v) => [v.exportId, v.runId, v.seq, v.rawOffset, v.rawSize, v.gzipOffset, v.data.length, v.data],
);

export const insertChunk = (em: EntityManager, chunk: NewChunk) => exec(em, INSERT_CHUNK, chunk);

/** What a finished run made. */
export interface Finished {
  rowCount: number;
  sizeBytes: number;
  gzipSizeBytes: number;
  syncCheckpoint: Date;
  completedAt: Date;
  expiresAt: Date;
}

/** `ready`, if `runId` is still the export's run (a run started after it has taken over). */
const FINISH_RUN = statement<{ id: string }, Finished & { id: string; runId: string }>(
  `update "exports"
      set "status" = 'ready', "row_count" = $3, "size_bytes" = $4, "gzip_size_bytes" = $5,
          "sync_checkpoint" = $6, "completed_at" = $7, "expires_at" = $8, "updated_at" = $7
    where "id" = $1 and "run_id" = $2 and "status" = 'running'
    returning "id"`,
  (v) => [
    v.id,
    v.runId,
    v.rowCount,
    v.sizeBytes,
    v.gzipSizeBytes,
    v.syncCheckpoint,
    v.completedAt,
    v.expiresAt,
  ],
);

export const finishRun = async (
  em: EntityManager,
  id: string,
  runId: string,
  finished: Finished,
): Promise<boolean> => (await exec(em, FINISH_RUN, { id, runId, ...finished })).length > 0;

/** `failed`, with its reason, and its chunks deleted; an export already done is left as it is. */
const FAIL = statement<{ id: string }, { id: string; reason: string; at: Date }>(
  `with failed as (
     update "exports"
        set "status" = 'failed', "failure_reason" = $2, "completed_at" = $3, "updated_at" = $3
      where "id" = $1 and "status" in ('pending', 'running')
      returning "id"
   ), removed as (
     delete from "export_chunks" where "export_id" in (select "id" from failed)
   )
   select "id" from failed`,
  (v) => [v.id, v.reason, v.at],
);

export const failExport = async (em: EntityManager, id: string, reason: string, at: Date) =>
  (await exec(em, FAIL, { id, reason, at })).length > 0;

/** Where each chunk of a file lies, in order (one row per MiB of text: a few hundred at most). */
export interface ChunkPlace {
  seq: number;
  rawOffset: number;
  rawSize: number;
  gzipOffset: number;
  gzipSize: number;
}

const CHUNK_PLACES = statement<
  { seq: number; rawOffset: string; rawSize: number; gzipOffset: string; gzipSize: number },
  { id: string; runId: string }
>(
  `select "seq", "raw_offset" as "rawOffset", "raw_size" as "rawSize",
          "gzip_offset" as "gzipOffset", "gzip_size" as "gzipSize"
     from "export_chunks" where "export_id" = $1 and "run_id" = $2 order by "seq"`,
  (v) => [v.id, v.runId],
);

export async function chunkPlaces(
  em: EntityManager,
  id: string,
  runId: string,
): Promise<ChunkPlace[]> {
  return (await exec(em, CHUNK_PLACES, { id, runId })).map((row) => ({
    seq: row.seq,
    rawOffset: Number(row.rawOffset),
    rawSize: row.rawSize,
    gzipOffset: Number(row.gzipOffset),
    gzipSize: row.gzipSize,
  }));
}

const CHUNK_DATA = statement<{ data: Buffer }, { id: string; runId: string; seq: number }>(
  `select "data" from "export_chunks" where "export_id" = $1 and "run_id" = $2 and "seq" = $3`,
  (v) => [v.id, v.runId, v.seq],
);

/** One chunk's gzip member; undefined once the file is gone (removed after its retention). */
export const chunkData = async (em: EntityManager, id: string, runId: string, seq: number) =>
  (await exec(em, CHUNK_DATA, { id, runId, seq }))[0]?.data;

/** Ready exports past their retention: `expired`, their files deleted. How many. */
const EXPIRE = statement<{ id: string }, { at: Date }>(
  `with expired as (
     update "exports" set "status" = 'expired', "updated_at" = $1
      where "status" = 'ready' and "expires_at" <= $1
      returning "id"
   ), removed as (
     delete from "export_chunks" where "export_id" in (select "id" from expired)
   )
   select "id" from expired`,
  (v) => [v.at],
);

export const expireExports = async (em: EntityManager, at: Date) =>
  (await exec(em, EXPIRE, { at })).length;

/**
 * Exports still not done long after they were asked for (their job gave up without a word, its
 * last process gone): `failed`, their partial files deleted.
 */
const FAIL_STALLED = statement<{ id: string }, { before: Date; at: Date; reason: string }>(
  `with failed as (
     update "exports"
        set "status" = 'failed', "failure_reason" = $3, "completed_at" = $2, "updated_at" = $2
      where "status" in ('pending', 'running') and "created_at" < $1
      returning "id"
   ), removed as (
     delete from "export_chunks" where "export_id" in (select "id" from failed)
   )
   select "id" from failed`,
  (v) => [v.before, v.at, v.reason],
);

export const failStalledExports = async (
  em: EntityManager,
  before: Date,
  at: Date,
  reason: string,
) => (await exec(em, FAIL_STALLED, { before, at, reason })).length;
