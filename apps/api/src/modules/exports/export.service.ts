import type { EntityManager } from '@mikro-orm/postgresql';
import {
  MAX_ACTIVE_EXPORTS,
  type Export as ExportResource,
  type ExportCreate,
  type ExportStatus,
} from '@boxoffice/contract';
import type { PoolClient } from 'pg';
import type { TenantContext } from '../../core/context';
import { AppError, conflict } from '../../core/errors';
import { isoOrNull } from '../../core/iso-time';
import { stampsOf } from '../../core/stamps';
import { inTransaction, transactionClient } from '../../db/driver';
import { deleteAllOwned, getOwned } from '../../db/owned';
import { findPage, listOrder, type Page, type PageRequest } from '../../db/pages';
import { Export } from './export.entity';
import {
  chunkData,
  chunkPlaces,
  expireExports,
  failStalledExports,
  lockAndCountActive,
  type ChunkPlace,
} from './export.repository';

/** The export as the API renders it; `livemode` says whether it is live data or test data. */
export const toExportResource = (row: Export, livemode: boolean): ExportResource => ({
  id: row.id,
  resource: row.resource,
  filters: row.filters,
  format: row.format,
  status: row.status,
  row_count: row.rowCount == null ? null : Number(row.rowCount),
  size_bytes: row.sizeBytes == null ? null : Number(row.sizeBytes),
  sync_checkpoint: isoOrNull(row.syncCheckpoint),
  completed_at: isoOrNull(row.completedAt),
  expires_at: isoOrNull(row.expiresAt),
  failure_reason: row.failureReason ?? null,
  ...stampsOf(row, livemode),
});

/** Where exports are handed to be made: the job queue (export-jobs.ts). */
export interface ExportQueue {
  /** Adds the job of export `id` in the transaction `client` is in. */
  enqueue(client: PoolClient, id: string): Promise<void>;
}

/** A filter's value as the export renders it: times in ISO-8601 UTC, the rest as parsed. */
const wireValue = (value: unknown): unknown =>
  value instanceof Date ? value.toISOString() : value;

/** The contract's parse of the filters (status lists, `Date`s, booleans), as stored and shown. */
export const storedFilters = (filters: Record<string, unknown> | undefined) =>
  Object.fromEntries(
    Object.entries(filters ?? {})
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, wireValue(value)]),
  );

/**
 * A new export, `pending`, and its job, in one transaction: the job runs only if the export is
 * stored, and the export is made by its job (on whichever replica takes it). At most
 * MAX_ACTIVE_EXPORTS of the organisation's may be pending or running: a 409 past them.
 */
export function createExport(
  ctx: TenantContext,
  body: ExportCreate & { filters?: Record<string, unknown> | undefined },
  queue: ExportQueue,
): Promise<Export> {
  return inTransaction(ctx, async (tx) => {
    const active = await lockAndCountActive(tx.em, tx.organisationId);
    if (active >= MAX_ACTIVE_EXPORTS) {
      throw conflict(
        `At most ${MAX_ACTIVE_EXPORTS} exports may be pending or running at once; wait for one to finish.`,
        'too_many_exports',
      );
    }
    const row = tx.em.create(Export, {
      organisationId: tx.organisationId,
      resource: body.resource,
      filters: storedFilters(body.filters),
      format: body.format ?? 'ndjson',
      status: 'pending',
      runId: null,
      rowCount: null,
      sizeBytes: null,
      gzipSizeBytes: null,
      syncCheckpoint: null,
      completedAt: null,
      expiresAt: null,
      failureReason: null,
      livemode: tx.livemode,
    });
    await queue.enqueue(transactionClient(tx.em), row.id);
    return row;
  });
}

export interface ExportFilters extends PageRequest {
  status?: ExportStatus[];
  resource?: ExportResource['resource'][];
}

export function listExports(ctx: TenantContext, query: ExportFilters): Promise<Page<Export>> {
  const where: Record<string, unknown> = { organisationId: ctx.organisationId };
  if (query.status) where.status = { $in: query.status };
  if (query.resource) where.resource = { $in: query.resource };
  return findPage(ctx.em, Export, where, query, listOrder({}));
}

/** Deletes every export of the tenant's, with its file (a test environment's reset); how many. */
export const deleteAllExports = (ctx: TenantContext): Promise<number> =>
  deleteAllOwned(ctx, Export);

/** The tenant's latest `limit` exports, newest first (the dashboard's list). */
export const latestExports = (ctx: TenantContext, limit: number): Promise<Export[]> =>
  ctx.em.find(
    Export,
    { organisationId: ctx.organisationId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit },
  );

export const getExport = (ctx: TenantContext, id: string): Promise<Export> =>
  getOwned(ctx, Export, 'export', 'export', id);

/** A ready export's file: where its chunks lie, and its sizes in both encodings. */
export interface ExportFile {
  row: Export;
  runId: string;
  chunks: ChunkPlace[];
  size: number;
  gzipSize: number;
}

const gone = (id: string) =>
  new AppError(
    410,
    'export_expired',
    `The file of export ${id} was removed after its retention; make a new export.`,
  );

/**
 * The file of the tenant's export `id`: a 404 for none, a 409 `export_not_ready` while it is made
 * (or when it failed), a 410 `export_expired` once removed (or due to be).
 */
export async function openExportFile(
  ctx: TenantContext,
  id: string,
  now: Date = new Date(),
): Promise<ExportFile> {
  const row = await getExport(ctx, id);
  if (row.status === 'expired') throw gone(id);
  const runId = row.runId;
  if (row.status !== 'ready' || !runId) {
    const why =
      row.status === 'failed'
        ? `export ${id} failed (${row.failureReason ?? 'no reason given'}): it has no file`
        : `export ${id} is ${row.status}: its file is not ready yet; poll the export until its status is ready`;
    throw conflict(why, 'export_not_ready');
  }
  if (row.expiresAt != null && row.expiresAt <= now) throw gone(id);
  const chunks = await chunkPlaces(ctx.em, id, runId);
  return {
    row,
    runId,
    chunks,
    size: Number(row.sizeBytes ?? 0),
    gzipSize: Number(row.gzipSizeBytes ?? 0),
  };
}

/** One chunk of an open file (its gzip member): a 410 if the file was removed meanwhile. */
export async function readChunk(em: EntityManager, file: ExportFile, seq: number): Promise<Buffer> {
  const data = await chunkData(em, file.row.id, file.runId, seq);
  if (!data) throw gone(file.row.id);
  return data;
}

/**
 * The periodic sweep: files past their retention removed (their exports `expired`), and exports
 * still not done `stalledAfterMs` after they were asked for marked `failed`. How many of each.
 */
export async function sweepExports(
  em: EntityManager,
  options: { stalledAfterMs: number },
  now: Date = new Date(),
): Promise<{ expired: number; failed: number }> {
  const expired = await expireExports(em, now);
  const failed = await failStalledExports(
    em,
    new Date(now.getTime() - options.stalledAfterMs),
    now,
    'the export was not made in time; make a new export',
  );
  return { expired, failed };
}
