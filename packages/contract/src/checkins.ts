import { z } from 'zod';
import {
  checkinWriteRoute,
  itemEnvelope,
  mutationResponses,
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

/** What a door says of one scan: the fields of a check-in's creation. */
const CheckinScanSchema = z
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
  .strict();

/** A scan names its ticket by exactly one of `ticket_id` and `code`. */
const namingOneTicket = (body: { ticket_id?: string; code?: string }, ctx: z.RefinementCtx) => {
  if ((body.ticket_id === undefined) === (body.code === undefined)) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: 'exactly one of ticket_id or code is required',
    });
  }
};
const TICKET_NAMES = ['ticket_id', 'code'];

export const CheckinCreateSchema = exactlyOneOf(
  CheckinScanSchema.superRefine(namingOneTicket),
  TICKET_NAMES,
);
export type CheckinCreate = z.infer<typeof CheckinCreateSchema>;

/** The most scans one batch may carry. */
export const MAX_CHECKIN_BATCH = 100;

export const CheckinBatchItemSchema = exactlyOneOf(
  CheckinScanSchema.extend({
    /**
     * The scan's own idempotency key, 1–255 characters, unique per scan (a door makes one when it
     * scans): a batch re-sent after a lost answer gives this item the answer it had the first time
     * (whatever it was) instead of recording it again. Keys belong to the API key, apart from
     * `Idempotency-Key` headers.
     */
    idempotency_key: z.string().min(1).max(255).optional(),
  }).superRefine(namingOneTicket),
  TICKET_NAMES,
);
export type CheckinBatchItem = z.infer<typeof CheckinBatchItemSchema>;

export const CheckinBatchCreateSchema = z
  .object({
    /** 1–100 scans, applied in this order, each on its own. */
    checkins: z.array(CheckinBatchItemSchema).min(1).max(MAX_CHECKIN_BATCH),
  })
  .strict();
export type CheckinBatchCreate = z.infer<typeof CheckinBatchCreateSchema>;

export const CHECKIN_BATCH_STATUSES = [201, 404, 409, 422] as const;

/** What became of one scan of a batch: what `POST /checkins` would have answered for it alone. */
export const CheckinBatchResultSchema = z.object({
  /**
   * `201` recorded; `404` no such ticket; `409` refused by the ticket's state (`code` says which:
   * `already_checked_in`, `ticket_void`, `not_checked_in`), or the scan's `idempotency_key` in use
   * by a request still running (`idempotency_in_flight`); `422` a ticket of another event
   * (`wrong_event`), or an `idempotency_key` used before with another scan
   * (`idempotency_key_reused`).
   */
  status: z.union([z.literal(201), z.literal(404), z.literal(409), z.literal(422)]),
  /** The check-in recorded (with a 201), else `null`. */
  data: CheckinSchema.nullable(),
  /** Why it was refused, for people; absent with a 201. */
  error: z.string().optional(),
  /** The kind of refusal, for programs (`already_checked_in`, …); absent with a 201. */
  code: z.string().optional(),
  /**
   * With `already_checked_in`: the check-in that admitted the ticket (its `scanned_at`, `gate` and
   * `device_id` say when and where), so the door can say so.
   */
  admission: CheckinSchema.optional(),
  /** `true` when the item's `idempotency_key` was seen before and this is that first answer. */
  replayed: z.boolean(),
});
export type CheckinBatchResult = z.infer<typeof CheckinBatchResultSchema>;

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
  createBatch: {
    method: 'POST',
    path: '/checkins/batch',
    body: CheckinBatchCreateSchema,
    responses: {
      200: itemEnvelope(z.array(CheckinBatchResultSchema)),
      ...mutationResponses,
    },
    metadata: checkinWriteRoute,
    summary: 'Check in a batch of scans',
    description:
      "Up to 100 scans in one request, counted as one write against the rate limit: for a door that scans faster than 10 people a minute, or sends the scans it made offline. The scans are applied in order (an entry then an exit of one ticket both count), each on its own: a refused scan changes nothing of the others. `data` has one result per scan, in order, with the status and body `POST /checkins` would have given it; a ticket admitted meanwhile at another door is a 409 `already_checked_in` naming that `admission`. Give each scan an `idempotency_key` so that a batch re-sent after a lost answer records nobody twice; the request's own `Idempotency-Key` replays the whole answer. A malformed scan refuses the whole batch (400 `validation_failed` naming it, as `checkins.3.code`; nothing recorded).",
  },
});
