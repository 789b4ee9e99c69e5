import { z } from 'zod';
import { PaginationQuerySchema, readRoutes, textParam, TimestampSchema } from './common';
import { byEvent, byStatus, sinceUpdated } from './list-filters';
import { resourceRouter } from './resource-router';
import { resourceSchema } from './resource-schema';

export const ORDER_STATUSES = ['pending', 'completed', 'cancelled', 'refunded'] as const;
export const OrderStatusSchema = z.enum(ORDER_STATUSES);
export type OrderStatus = z.infer<typeof OrderStatusSchema>;

export const OrderSchema = resourceSchema({
  /** The order's id, `ord_…`. */
  id: z.string(),
  /** The reference the buyer sees, e.g. `BX-7K3Q9P`. */
  reference: z.string(),
  /** The event the order is for, `evt_…`. */
  event_id: z.string(),
  /** The buyer's name. */
  buyer_name: z.string(),
  /** The buyer's email address. */
  buyer_email: z.string(),
  /**
   * `pending`, `completed`, `cancelled` or `refunded`; cancelling or refunding voids the order's
   * tickets.
   */
  status: OrderStatusSchema,
  /** The tickets' prices, in minor units of `currency`. */
  subtotal: z.number().int(),
  /** Booking fees, in minor units. */
  fees: z.number().int(),
  /** `subtotal + fees`, in minor units: what the buyer paid. */
  total: z.number().int(),
  /** What has been refunded, in minor units. */
  refunded_amount: z.number().int(),
  /** The ISO 4217 currency of the amounts. */
  currency: z.string(),
  /** How many tickets the order has. */
  ticket_count: z.number().int(),
  /** When the buyer placed the order (ISO-8601, UTC). */
  placed_at: TimestampSchema,
  /** When payment was received (ISO-8601, UTC), or `null`. */
  paid_at: TimestampSchema.nullable(),
  /** When the order was cancelled (ISO-8601, UTC), or `null`. */
  cancelled_at: TimestampSchema.nullable(),
});
export type Order = z.infer<typeof OrderSchema>;

export const OrderListQuerySchema = PaginationQuerySchema.extend({
  ...byEvent,
  ...byStatus(ORDER_STATUSES),
  /** Only orders whose buyer has this email address, ignoring case. */
  email: textParam('email', 320),
  /** Only the order with this reference, exactly. */
  reference: textParam('reference', 40),
  ...sinceUpdated,
});
export type OrderListQuery = z.input<typeof OrderListQuerySchema>;

export const ordersContract = resourceRouter(
  readRoutes({
    path: '/orders',
    item: OrderSchema,
    query: OrderListQuerySchema,
    plural: 'orders',
    singular: 'an order',
    description: '`email` matches the buyer’s email ignoring case; `reference` matches exactly.',
  }),
);
