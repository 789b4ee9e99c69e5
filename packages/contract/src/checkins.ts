import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  checkinWriteRoute,
  commonResponses,
  enumListParam,
  itemEnvelope,
  mutationResponses,
  PaginationQuerySchema,
  readRoutes,
  textParam,
  TextSchema,
  timestampParam,
  TimestampSchema,
} from './common';
import { byEvent } from './list-filters';

const c = initContract();

export const CHECKIN_DIRECTIONS = ['entry', 'exit'] as const;
export const CheckinDirectionSchema = z.enum(CHECKIN_DIRECTIONS);
export type CheckinDirection = z.infer<typeof CheckinDirectionSchema>;

export const CheckinSchema = z.object({
  id: z.string(),
  ticket_id: z.string(),
  attendee_id: z.string(),
  event_id: z.string(),
  direction: CheckinDirectionSchema,
  gate: z.string().nullable(),
  device_id: z.string().nullable(),
  scanned_at: TimestampSchema,
  api_key_id: z.string().nullable(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type Checkin = z.infer<typeof CheckinSchema>;

export const CheckinCreateSchema = z
  .object({
    ticket_id: z.string().min(1).max(80).optional(),
    code: TextSchema.min(1).max(200).optional(),
    event_id: z.string().min(1).max(80).optional(),
    direction: CheckinDirectionSchema.optional(),
    gate: TextSchema.trim().min(1).max(100).optional(),
    device_id: TextSchema.trim().min(1).max(100).optional(),
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
  });
export type CheckinCreate = z.infer<typeof CheckinCreateSchema>;

export const CheckinListQuerySchema = PaginationQuerySchema.extend({
  ...byEvent,
  ticket_id: textParam('ticket_id', 80),
  direction: enumListParam('direction', CHECKIN_DIRECTIONS),
  gate: textParam('gate', 100),
  since: timestampParam('since'),
});
export type CheckinListQuery = z.input<typeof CheckinListQuerySchema>;

export const checkinsContract = c.router(
  {
    ...readRoutes({
      path: '/checkins',
      item: CheckinSchema,
      query: CheckinListQuerySchema,
      plural: 'check-ins',
      singular: 'a check-in',
      description: '`since` filters on server receipt time (`created_at`), inclusive.',
    }),
    create: {
      method: 'POST',
      path: '/checkins',
      body: CheckinCreateSchema,
      responses: { 201: itemEnvelope(CheckinSchema), ...mutationResponses },
      metadata: checkinWriteRoute,
      summary: 'Check a ticket in or out',
      description:
        'By `ticket_id` or scanned `code` (exactly one). Entry of a valid ticket admits it; exit of a checked-in ticket lets it out again. An admitted ticket scanned again is a 409, as is a void ticket; a ticket of another event than `event_id` is a 422. Send an `Idempotency-Key` so a retried scan is never counted twice.',
    },
  },
  { commonResponses, strictStatusCodes: true },
);
