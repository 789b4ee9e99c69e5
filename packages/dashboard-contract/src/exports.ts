import { initContract } from '@ts-rest/core';
import {
  ErrorSchema,
  EVENT_STATUSES,
  ExportCreateSchema,
  ExportSchema,
  ORDER_STATUSES,
  PAYOUT_STATUSES,
  TextSchema,
  TICKET_STATUSES,
  TIER_STATUSES,
  type ExportResource,
} from '@boxoffice/contract';
import { z } from 'zod';
import { ModeHeadersSchema, ModeSchema } from './mode';

export type {
  Export,
  ExportCreate,
  ExportFormat,
  ExportResource,
  ExportStatus,
} from '@boxoffice/contract';
export {
  EXPORT_FORMATS,
  EXPORT_RESOURCES,
  EXPORT_STATUSES,
  MAX_ACTIVE_EXPORTS,
} from '@boxoffice/contract';

/**
 * The statuses the list of each resource filters by (`filters.status`), or `null` for a list
 * without a status (attendees, check-ins).
 */
export const EXPORT_STATUS_FILTERS = {
  events: EVENT_STATUSES,
  tiers: TIER_STATUSES,
  orders: ORDER_STATUSES,
  tickets: TICKET_STATUSES,
  attendees: null,
  checkins: null,
  payouts: PAYOUT_STATUSES,
} as const satisfies Record<ExportResource, readonly string[] | null>;

/**
 * The download's own choice of mode, for a plain link (which sends no `X-Boxoffice-Mode`): the
 * header's value when both are given, which must then agree.
 */
export const ExportFileQuerySchema = z.object({ mode: ModeSchema.optional() }).strict();

const c = initContract();

/** The most recent exports the dashboard lists. */
export const DASHBOARD_EXPORTS = 50;

const file = c.otherResponse({ contentType: 'application/x-ndjson', body: c.type<string>() });

/**
 * Data → Exports: the organisation's exports in the mode of the request (`X-Boxoffice-Mode`),
 * asked for and downloaded as with the public API (the same limits, the same files).
 */
export const exportRoutes = {
  listExports: {
    method: 'GET',
    path: '/exports',
    headers: ModeHeadersSchema,
    responses: { 200: z.object({ data: z.array(ExportSchema) }) },
    summary: `The organisation’s latest ${DASHBOARD_EXPORTS} exports, newest first`,
  },
  createExport: {
    method: 'POST',
    path: '/exports',
    headers: ModeHeadersSchema,
    body: ExportCreateSchema,
    responses: { 202: z.object({ data: ExportSchema }), 409: ErrorSchema },
    summary: 'Export a list (at most 3 pending or running at once: 409 `too_many_exports`)',
  },
  downloadExport: {
    method: 'GET',
    path: '/exports/:id/file',
    headers: ModeHeadersSchema,
    pathParams: z.object({ id: TextSchema }),
    query: ExportFileQuerySchema,
    responses: {
      200: file,
      206: file,
      404: ErrorSchema,
      409: ErrorSchema,
      410: ErrorSchema,
      416: ErrorSchema,
    },
    summary:
      "An export's file, as `GET /api/v1/exports/{id}/file` sends it; a link names the mode with `?mode=`",
  },
} as const;
