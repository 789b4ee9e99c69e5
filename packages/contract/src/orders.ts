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

export const ORDER_STATUSES = ['pending', 'completed', 'cancelled', 'refunded'] as const;
export const OrderStatusSchema = z.enum(ORDER_STATUSES);
export type OrderStatus = z.infer<typeof OrderStatusSchema>;

export const OrderSchema = z.object({
  id: z.string(),
  reference: z.string(),
  event_id: z.string(),
  buyer_name: z.string(),
  buyer_email: z.string(),
  status: OrderStatusSchema,
  subtotal: z.number().int(),
  fees: z.number().int(),
  total: z.number().int(),
  refunded_amount: z.number().int(),
  currency: z.string(),
  ticket_count: z.number().int(),
  placed_at: TimestampSchema,
  paid_at: TimestampSchema.nullable(),
  cancelled_at: TimestampSchema.nullable(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type Order = z.infer<typeof OrderSchema>;

export const OrderListQuerySchema = PaginationQuerySchema.extend({
  ...byEvent,
  ...byStatus(ORDER_STATUSES),
  email: textParam('email', 320),
  reference: textParam('reference', 40),
  ...sinceUpdated,
});
export type OrderListQuery = z.input<typeof OrderListQuerySchema>;

export const ordersContract = c.router(
  {
    ...readRoutes({
      path: '/orders',
      item: OrderSchema,
      query: OrderListQuerySchema,
      plural: 'orders',
      singular: 'an order',
      description: '`email` matches the buyer’s email ignoring case; `reference` matches exactly.',
    }),
  },
  { commonResponses, strictStatusCodes: true },
);
