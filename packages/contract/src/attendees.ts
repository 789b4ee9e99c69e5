import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  commonResponses,
  booleanParam,
  PaginationQuerySchema,
  readRoutes,
  textParam,
  TimestampSchema,
} from './common';
import { byEvent, sinceUpdated } from './list-filters';

const c = initContract();

export const AttendeeAnswerSchema = z.object({ question: z.string(), answer: z.string() });
export type AttendeeAnswer = z.infer<typeof AttendeeAnswerSchema>;

export const AttendeeSchema = z.object({
  id: z.string(),
  ticket_id: z.string(),
  order_id: z.string(),
  event_id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string().nullable(),
  company: z.string().nullable(),
  answers: z.array(AttendeeAnswerSchema),
  checked_in: z.boolean(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type Attendee = z.infer<typeof AttendeeSchema>;

export const AttendeeListQuerySchema = PaginationQuerySchema.extend({
  ...byEvent,
  order_id: textParam('order_id', 80),
  ticket_id: textParam('ticket_id', 80),
  email: textParam('email', 320),
  checked_in: booleanParam('checked_in'),
  ...sinceUpdated,
});
export type AttendeeListQuery = z.input<typeof AttendeeListQuerySchema>;

export const attendeesContract = c.router(
  {
    ...readRoutes({
      path: '/attendees',
      item: AttendeeSchema,
      query: AttendeeListQuerySchema,
      plural: 'attendees',
      singular: 'an attendee',
      description:
        '`checked_in` is true while the attendee’s ticket is checked in; `email` matches ignoring case.',
    }),
  },
  { commonResponses, strictStatusCodes: true },
);
