import { z } from 'zod';
import { booleanParam, PaginationQuerySchema, readRoutes, textParam } from './common';
import { byEvent, sinceUpdated } from './list-filters';
import { resourceRouter } from './resource-router';
import { resourceSchema } from './resource-schema';

export const AttendeeAnswerSchema = z.object({
  /** The question asked at checkout. */
  question: z.string(),
  /** The attendee's answer. */
  answer: z.string(),
});
export type AttendeeAnswer = z.infer<typeof AttendeeAnswerSchema>;

export const AttendeeSchema = resourceSchema({
  /** The attendee's id, `att_…`. */
  id: z.string(),
  /** Their ticket, `tkt_…`. */
  ticket_id: z.string(),
  /** The order their ticket was bought in, `ord_…`. */
  order_id: z.string(),
  /** The event, `evt_…`. */
  event_id: z.string(),
  /** First name, as given at checkout. */
  first_name: z.string(),
  /** Last name, as given at checkout. */
  last_name: z.string(),
  /** Email address, or `null`. */
  email: z.string().nullable(),
  /** Company, or `null`. */
  company: z.string().nullable(),
  /** Their answers to the checkout's questions, in order. */
  answers: z.array(AttendeeAnswerSchema),
  /** Whether their ticket is checked in now (it changes with each check-in, with `updated_at`). */
  checked_in: z.boolean(),
});
export type Attendee = z.infer<typeof AttendeeSchema>;

export const AttendeeListQuerySchema = PaginationQuerySchema.extend({
  ...byEvent,
  /** Only the attendees of this order (`ord_…`). */
  order_id: textParam('order_id', 80),
  /** Only the attendee of this ticket (`tkt_…`). */
  ticket_id: textParam('ticket_id', 80),
  /** Only attendees with this email address, ignoring case. */
  email: textParam('email', 320),
  /** Only attendees inside (`true`) or not inside (`false`) now. */
  checked_in: booleanParam('checked_in'),
  ...sinceUpdated,
});
export type AttendeeListQuery = z.input<typeof AttendeeListQuerySchema>;

export const attendeesContract = resourceRouter(
  readRoutes({
    path: '/attendees',
    item: AttendeeSchema,
    query: AttendeeListQuerySchema,
    plural: 'attendees',
    singular: 'an attendee',
    description:
      '`checked_in` is true while the attendee’s ticket is checked in; `email` matches ignoring case.',
  }),
);
