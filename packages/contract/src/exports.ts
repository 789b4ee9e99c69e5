import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  enumListParam,
  ErrorSchema,
  IdPathSchema,
  itemEnvelope,
  mutationResponses,
  NoQuerySchema,
  PaginationQuerySchema,
  readRoute,
  readRoutes,
  TimestampSchema,
} from './common';
import { AttendeeListQuerySchema, AttendeeSchema } from './attendees';
import { CheckinListQuerySchema, CheckinSchema } from './checkins';
import { EventListQuerySchema, EventSchema } from './events';
import { OrderListQuerySchema, OrderSchema } from './orders';
import { PayoutListQuerySchema, PayoutSchema } from './payouts';
import { resourceRouter } from './resource-router';
import { resourceSchema } from './resource-schema';
import { TicketListQuerySchema, TicketSchema } from './tickets';
import { TierListQuerySchema, TierSchema } from './tiers';

const c = initContract();

/** The lists an export can copy: each list of the API, under the name of its path. */
export const EXPORT_RESOURCES = [
  'events',
  'tiers',
  'orders',
  'tickets',
  'attendees',
  'checkins',
  'payouts',
] as const;
export const ExportResourceSchema = z.enum(EXPORT_RESOURCES);
export type ExportResource = z.infer<typeof ExportResourceSchema>;

/** `ndjson`: one JSON object per line. `csv`: RFC 4180, one row per object under a header row. */
export const EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export const ExportFormatSchema = z.enum(EXPORT_FORMATS);
export type ExportFormat = z.infer<typeof ExportFormatSchema>;

/** The media type of each format's file. */
export const EXPORT_CONTENT_TYPES = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
} as const satisfies Record<ExportFormat, string>;

/**
 * `pending` (queued), `running`, `ready` (the file can be downloaded), `failed` (see
 * `failure_reason`), `expired` (the file was removed after its retention).
 */
export const EXPORT_STATUSES = ['pending', 'running', 'ready', 'failed', 'expired'] as const;
export const ExportStatusSchema = z.enum(EXPORT_STATUSES);
export type ExportStatus = z.infer<typeof ExportStatusSchema>;

/** The most exports of one organisation (and mode) that may be `pending` or `running` at once. */
export const MAX_ACTIVE_EXPORTS = 3;

/** The query parameters of a list that only page it: not filters, so not part of an export. */
const PAGINATION = { page: true, limit: true, cursor: true } as const;

/** Each list's filters: its query without the pagination parameters (`page`, `limit`, `cursor`). */
export const EventExportFiltersSchema = EventListQuerySchema.omit(PAGINATION);
export const TierExportFiltersSchema = TierListQuerySchema.omit(PAGINATION);
export const OrderExportFiltersSchema = OrderListQuerySchema.omit(PAGINATION);
export const TicketExportFiltersSchema = TicketListQuerySchema.omit(PAGINATION);
export const AttendeeExportFiltersSchema = AttendeeListQuerySchema.omit(PAGINATION);
export const CheckinExportFiltersSchema = CheckinListQuerySchema.omit(PAGINATION);
export const PayoutExportFiltersSchema = PayoutListQuerySchema.omit(PAGINATION);

/** The filters each resource's export takes: those of its list. */
export const EXPORT_FILTER_SCHEMAS = {
  events: EventExportFiltersSchema,
  tiers: TierExportFiltersSchema,
  orders: OrderExportFiltersSchema,
  tickets: TicketExportFiltersSchema,
  attendees: AttendeeExportFiltersSchema,
  checkins: CheckinExportFiltersSchema,
  payouts: PayoutExportFiltersSchema,
} as const satisfies Record<ExportResource, z.AnyZodObject>;

/** The filters an export of `R` takes, as a caller writes them (`status: ['valid']`, a `Date`, …). */
export type ExportFilters<R extends ExportResource> = z.input<(typeof EXPORT_FILTER_SCHEMAS)[R]>;

/** What one row of an export file is: the resource exactly as its list renders it. */
export const EXPORT_ROW_SCHEMAS = {
  events: EventSchema,
  tiers: TierSchema,
  orders: OrderSchema,
  tickets: TicketSchema,
  attendees: AttendeeSchema,
  checkins: CheckinSchema,
  payouts: PayoutSchema,
} as const satisfies Record<ExportResource, z.AnyZodObject>;

/** The object of each export's rows, by resource. */
export type ExportRows = { [R in ExportResource]: z.infer<(typeof EXPORT_ROW_SCHEMAS)[R]> };
/** One row of an export of `R`: `ExportRow<'tickets'>` is a `Ticket`. */
export type ExportRow<R extends ExportResource> = ExportRows[R];

/** The body of an export of one resource: `resource`, the list's filters, and the format. */
const exportRequest = <R extends ExportResource, F extends z.AnyZodObject>(
  resource: R,
  filters: F,
) =>
  z
    .object({
      /** Which list to export. */
      resource: z.literal(resource),
      /** The list's own filters (its query parameters but `page`, `limit` and `cursor`); none: all. */
      filters: filters.optional(),
      /** `ndjson` (the default) or `csv`. */
      format: ExportFormatSchema.optional(),
    })
    .strict();

/** The body of an export of each resource: `resource` names it, `filters` are its list's. */
export const EventExportCreateSchema = exportRequest('events', EventExportFiltersSchema);
export const TierExportCreateSchema = exportRequest('tiers', TierExportFiltersSchema);
export const OrderExportCreateSchema = exportRequest('orders', OrderExportFiltersSchema);
export const TicketExportCreateSchema = exportRequest('tickets', TicketExportFiltersSchema);
export const AttendeeExportCreateSchema = exportRequest('attendees', AttendeeExportFiltersSchema);
export const CheckinExportCreateSchema = exportRequest('checkins', CheckinExportFiltersSchema);
export const PayoutExportCreateSchema = exportRequest('payouts', PayoutExportFiltersSchema);

export const ExportCreateSchema = z.discriminatedUnion('resource', [
  EventExportCreateSchema,
  TierExportCreateSchema,
  OrderExportCreateSchema,
  TicketExportCreateSchema,
  AttendeeExportCreateSchema,
  CheckinExportCreateSchema,
  PayoutExportCreateSchema,
]);
/** What `POST /exports` takes; `resource` decides which filters `filters` may hold. */
export type ExportCreate = z.input<typeof ExportCreateSchema>;
/** The body of an export of `R`, its filters typed: `ExportCreateOf<'tickets'>`. */
export type ExportCreateOf<R extends ExportResource> = Extract<ExportCreate, { resource: R }>;

export const ExportSchema = resourceSchema({
  /** The export's id, `exp_…`. */
  id: z.string(),
  /** Which list it copies. */
  resource: ExportResourceSchema,
  /**
   * The filters it was made with, as the server read them: status lists as arrays, times in UTC,
   * booleans as `true`/`false`; `{}` for none.
   */
  filters: z.record(z.unknown()),
  /** `ndjson` or `csv`. */
  format: ExportFormatSchema,
  /** `pending`, `running`, `ready`, `failed` or `expired`. */
  status: ExportStatusSchema,
  /** How many objects the file holds, once `ready` (`null` before). */
  row_count: z.number().int().nonnegative().nullable(),
  /** The file's size in bytes, uncompressed, once `ready` (`null` before). */
  size_bytes: z.number().int().nonnegative().nullable(),
  /**
   * Where the next sync starts, once `ready`: pass it as the list's `updated_since` (`since` for
   * check-ins) to get every change committed after the export's snapshot. A cursor walk begun at
   * the snapshot's moment would give the same.
   */
  sync_checkpoint: TimestampSchema.nullable(),
  /** When it became `ready` or `failed` (ISO-8601, UTC), or `null`. */
  completed_at: TimestampSchema.nullable(),
  /** When the file is removed (ISO-8601, UTC): set once `ready`, else `null`. */
  expires_at: TimestampSchema.nullable(),
  /** Why it failed, or `null`. */
  failure_reason: z.string().nullable(),
});
export type Export = z.infer<typeof ExportSchema>;

export const ExportListQuerySchema = PaginationQuerySchema.extend({
  /** Only exports in one of these statuses: one, or an array of several. */
  status: enumListParam('status', EXPORT_STATUSES),
  /** Only exports of these resources: one, or an array of several. */
  resource: enumListParam('resource', EXPORT_RESOURCES),
});
export type ExportListQuery = z.input<typeof ExportListQuerySchema>;

/** An export file: NDJSON or CSV text, sent as it streams (gzip-encoded when asked for). */
const exportFile = c.otherResponse({ contentType: 'application/x-ndjson', body: c.type<string>() });

const reads = readRoutes({
  path: '/exports',
  item: ExportSchema,
  query: ExportListQuerySchema,
  plural: 'exports',
  singular: 'an export',
  description: 'Newest last: ordered by `created_at` then `id`.',
});

export const exportsContract = resourceRouter({
  create: {
    method: 'POST',
    path: '/exports',
    body: ExportCreateSchema,
    responses: { 202: itemEnvelope(ExportSchema), ...mutationResponses },
    metadata: readRoute,
    summary: 'Export a list',
    description:
      'Starts a copy of a whole list (with its filters) into one file, made in the background from one consistent snapshot: poll the export until it is `ready`, then download its file. Needs the `read` scope and counts as one write against the rate limit. At most 3 exports of an organisation may be `pending` or `running` at once (409 `too_many_exports`). The file is kept 24 hours. Its `sync_checkpoint` continues the sync with `updated_since`.',
  },
  list: reads.list,
  get: reads.get,
  file: {
    method: 'GET',
    path: '/exports/:id/file',
    pathParams: IdPathSchema,
    query: NoQuerySchema,
    responses: {
      200: exportFile,
      206: exportFile,
      404: ErrorSchema,
      409: ErrorSchema,
      410: ErrorSchema,
      416: ErrorSchema,
    },
    metadata: readRoute,
    summary: "Download an export's file",
    description:
      '`application/x-ndjson` or `text/csv; charset=utf-8`, as an attachment. Sent gzip-encoded when the request accepts it (`Accept-Encoding: gzip`). A broken download resumes with `Range: bytes=<received>-` and `If-Range: <ETag>` (206 with `Content-Range`; 416 past the end); with gzip, the range counts encoded bytes. Not `ready` yet: 409 `export_not_ready`; removed after its retention: 410 `export_expired`.',
  },
});
