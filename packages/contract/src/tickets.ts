import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  commonResponses,
  PaginationQuerySchema,
  readRoutes,
  textParam,
  TimestampSchema,
} from './common';
import { byEvent, byStatus, sinceUpdated } from './list-filters';

const c = initContract();

export const TICKET_STATUSES = ['valid', 'checked_in', 'void'] as const;
export const TicketStatusSchema = z.enum(TICKET_STATUSES);
export type TicketStatus = z.infer<typeof TicketStatusSchema>;

export const TicketSchema = z.object({
  id: z.string(),
  order_id: z.string(),
  event_id: z.string(),
  tier_id: z.string(),
  attendee_id: z.string(),
  code: z.string(),
  status: TicketStatusSchema,
  price: z.number().int(),
  currency: z.string(),
  checked_in_at: TimestampSchema.nullable(),
  voided_at: TimestampSchema.nullable(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type Ticket = z.infer<typeof TicketSchema>;

export const TicketListQuerySchema = PaginationQuerySchema.extend({
  ...byEvent,
  order_id: textParam('order_id', 80),
  tier_id: textParam('tier_id', 80),
  ...byStatus(TICKET_STATUSES),
  code: textParam('code', 200),
  ...sinceUpdated,
});
export type TicketListQuery = z.input<typeof TicketListQuerySchema>;

export const ticketsContract = c.router(
  {
    ...readRoutes({
      path: '/tickets',
      item: TicketSchema,
      query: TicketListQuerySchema,
      plural: 'tickets',
      singular: 'a ticket',
      description:
        'Ordered by `created_at` then `id`; with `updated_since`, by `updated_at` then `id`. `code` finds the ticket of a scanned barcode.',
    }),
  },
  { commonResponses, strictStatusCodes: true },
);
