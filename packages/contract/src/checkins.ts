import { z } from 'zod';
import {
  checkinWriteRoute,
  createRoute,
  enumListParam,
  exactlyOneOf,
  PaginationQuerySchema,
  readRoutes,
  textParam,
  TextSchema,
  timestampParam,
  TimestampSchema,
} from './common';
import { byEvent } from './list-filters';
import { mode } from './resource-schema';
import { resourceRouter } from './resource-router';

export const CHECKIN_DIRECTIONS = ['entry', 'exit'] as const;
export const CheckinDirectionSchema = z.enum(CHECKIN_DIRECTIONS);
export type CheckinDirection = z.infer<typeof CheckinDirectionSchema>;

export const CheckinSchema = z.object({
  /** The check-in's id, `chk_…`. */
  id: z.string(),
  /** The ticket scanned, `tkt_…`. */
  ticket_id: z.string(),
  /** The ticket's attendee, `att_…`. */
  attendee_id: z.string(),
  /** The ticket's event, `evt_…`. */
  event_id: z.string(),
  /** `entry` (admitted) or `exit` (let out). */
  direction: CheckinDirectionSchema,
  /** The gate it was scanned at, or `null`. */
  gate: z.string().nullable(),
  /** The scanner that sent it, or `null`. */
  device_id: z.string().nullable(),
  /**
   * When the door scanned it (ISO-8601, UTC); the time the server received it, unless the scanner
   * said.
   */
  scanned_at: TimestampSchema,
  /** The API key that recorded it, or `null`. Set by the server. */
  api_key_id: z.string().nullable(),
  ...mode,
  /** When the server received it (ISO-8601, UTC); `since` filters on it. */
  created_at: TimestampSchema,
  /** Equal to `created_at`: check-ins never change. */
  updated_at: TimestampSchema,
});
export type Checkin = z.infer<typeof CheckinSchema>;

export const CheckinCreateSchema = exactlyOneOf(
  z
    .object({
      /** The ticket, by id (`tkt_…`). Give exactly one of `ticket_id` and `code`. */
      ticket_id: z.string().min(1).max(80).optional(),
      /** The ticket, by its scanned barcode secret. Give exactly one of `ticket_id` and `code`. */
      code: TextSchema.min(1).max(200).optional(),
      /** The door's event (`evt_…`): a ticket of another event is then a 422 instead of admitted. */
      event_id: z.string().min(1).max(80).optional(),
      /** `entry` (the default) admits a valid ticket; `exit` lets a checked-in one out. */
      direction: CheckinDirectionSchema.optional(),
      /** The gate, 1–100 characters (trimmed). */
      gate: TextSchema.trim().min(1).max(100).optional(),
      /** The scanner, 1–100 characters (trimmed). */
      device_id: TextSchema.trim().min(1).max(100).optional(),
      /**
       * When the door scanned (ISO-8601 with an offset), for scans sent late; defaults to when the
       * server receives it.
       */
      scanned_at: TimestampSchema.optional(),
    })
    .strict()
    .superRefine((body, ctx) => {
      if ((body.ticket_id === undefined) === (body.code === undefined)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: 'exactly one of ticket_id or code is required',
        });
      }
    }),
  ['ticket_id', 'code'],
);
export type CheckinCreate = z.infer<typeof CheckinCreateSchema>;

export const CheckinListQuerySchema = PaginationQuerySchema.extend({
  ...byEvent,
  /** Only the check-ins of this ticket (`tkt_…`). */
  ticket_id: textParam('ticket_id', 80),
  /** Only `entry` or only `exit` check-ins (or an array of both). */
  direction: enumListParam('direction', CHECKIN_DIRECTIONS),
  /** Only the check-ins at this gate. */
  gate: textParam('gate', 100),
  /**
   * Only check-ins the server received at or after this time (ISO-8601 or a `Date`): for syncing.
   * Pass the `sync_checkpoint` of the previous walk.
   */
  since: timestampParam('since'),
});
export type CheckinListQuery = z.input<typeof CheckinListQuerySchema>;

export const checkinsContract = resourceRouter({
  ...readRoutes({
    path: '/checkins',
    item: CheckinSchema,
    query: CheckinListQuerySchema,
    plural: 'check-ins',
    singular: 'a check-in',
    description: '`since` filters on server receipt time (`created_at`), inclusive.',
  }),
  create: createRoute({
    path: '/checkins',
    item: CheckinSchema,
    body: CheckinCreateSchema,
    metadata: checkinWriteRoute,
    summary: 'Check a ticket in or out',
    description:
      'By `ticket_id` or scanned `code` (exactly one). Entry of a valid ticket admits it; exit of a checked-in ticket lets it out again. An admitted ticket scanned again is a 409, as is a void ticket; a ticket of another event than `event_id` is a 422. Send an `Idempotency-Key` so a retried scan is never counted twice.',
  }),
});
