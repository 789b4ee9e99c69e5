import { z } from 'zod';
import { PaginationQuerySchema, readRoutes, textParam, TimestampSchema } from './common';
import { byEvent, byStatus, sinceUpdated } from './list-filters';
import { resourceRouter } from './resource-router';
import { resourceSchema } from './resource-schema';

export const TICKET_STATUSES = ['valid', 'checked_in', 'void'] as const;
export const TicketStatusSchema = z.enum(TICKET_STATUSES);
export type TicketStatus = z.infer<typeof TicketStatusSchema>;

export const TicketSchema = resourceSchema({
  /** The ticket's id, `tkt_…`. */
  id: z.string(),
  /** The order it was bought in, `ord_…`. */
  order_id: z.string(),
  /** The event it admits to, `evt_…`. */
  event_id: z.string(),
  /** Its tier, `tier_…`. */
  tier_id: z.string(),
  /** Who holds it, `att_…`. */
  attendee_id: z.string(),
  /** The barcode secret: 24 random base62 characters. Scan it with `checkins.create({ code })`. */
  code: z.string(),
  /** `valid`, `checked_in` (inside now) or `void` (its order was cancelled or refunded). */
  status: TicketStatusSchema,
  /** What it cost, in minor units of `currency`. */
  price: z.number().int(),
  /** The ISO 4217 currency of `price`. */
  currency: z.string(),
  /** When the current admission was scanned (ISO-8601, UTC), or `null`; cleared on exit. */
  checked_in_at: TimestampSchema.nullable(),
  /** When it became void (ISO-8601, UTC), or `null`. */
  voided_at: TimestampSchema.nullable(),
});
export type Ticket = z.infer<typeof TicketSchema>;

export const TicketListQuerySchema = PaginationQuerySchema.extend({
  ...byEvent,
  /** Only the tickets of this order (`ord_…`). */
  order_id: textParam('order_id', 80),
  /** Only the tickets of this tier (`tier_…`). */
  tier_id: textParam('tier_id', 80),
  ...byStatus(TICKET_STATUSES),
  /** Only the ticket with this barcode secret: how a scanned code is looked up. */
  code: textParam('code', 200),
  ...sinceUpdated,
});
export type TicketListQuery = z.input<typeof TicketListQuerySchema>;

export const ticketsContract = resourceRouter(
  readRoutes({
    path: '/tickets',
    item: TicketSchema,
    query: TicketListQuerySchema,
    plural: 'tickets',
    singular: 'a ticket',
    description:
      'Ordered by `created_at` then `id`; with `updated_since`, by `updated_at` then `id`. `code` finds the ticket of a scanned barcode.',
  }),
);
