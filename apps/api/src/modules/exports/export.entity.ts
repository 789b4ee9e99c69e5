import { p } from '@mikro-orm/core';
import { EXPORT_FORMATS, EXPORT_RESOURCES, EXPORT_STATUSES } from '@boxoffice/contract';
import { defineTenantEntity } from '../../db/base.entity';

export const ExportSchema = defineTenantEntity({
  name: 'Export',
  tableName: 'exports',
  idKind: 'export',
  properties: {
    resource: p.enum(EXPORT_RESOURCES),
    /** The filters as the contract parsed them, written as the API renders them. */
    filters: p.json<Record<string, unknown>>(),
    format: p.enum(EXPORT_FORMATS),
    status: p.enum(EXPORT_STATUSES),
    /** The run of its job whose chunks are the file (export_chunks.run_id). */
    runId: p.text().nullable(),
    rowCount: p.bigint('number').nullable(),
    sizeBytes: p.bigint('number').nullable(),
    gzipSizeBytes: p.bigint('number').nullable(),
    syncCheckpoint: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
    failureReason: p.text().nullable(),
    /** Whether its organisation holds live data: its rows are rendered so (`livemode`). */
    livemode: p.boolean(),
  },
});
export class Export extends ExportSchema.class {}
ExportSchema.setClass(Export);
