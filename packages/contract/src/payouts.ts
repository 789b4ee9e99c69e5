import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  commonResponses,
  DateSchema,
  PaginationQuerySchema,
  readRoutes,
  TimestampSchema,
} from './common';
import { byEvent, byStatus, sinceUpdated } from './list-filters';

const c = initContract();

export const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'cancelled', 'failed'] as const;
export const PayoutStatusSchema = z.enum(PAYOUT_STATUSES);
export type PayoutStatus = z.infer<typeof PayoutStatusSchema>;

export const PayoutSchema = z.object({
  id: z.string(),
  event_id: z.string().nullable(),
  gross_amount: z.number().int(),
  fees_amount: z.number().int(),
  refunds_amount: z.number().int(),
  amount: z.number().int(),
  currency: z.string(),
  status: PayoutStatusSchema,
  period_start: TimestampSchema,
  period_end: TimestampSchema,
  arrival_date: DateSchema.nullable(),
  paid_at: TimestampSchema.nullable(),
  failure_reason: z.string().nullable(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type Payout = z.infer<typeof PayoutSchema>;

export const PayoutListQuerySchema = PaginationQuerySchema.extend({
  ...byEvent,
  ...byStatus(PAYOUT_STATUSES),
  ...sinceUpdated,
});
export type PayoutListQuery = z.input<typeof PayoutListQuerySchema>;

export const payoutsContract = c.router(
  {
    ...readRoutes({
      path: '/payouts',
      item: PayoutSchema,
      query: PayoutListQuerySchema,
      plural: 'promoter payouts',
      singular: 'a payout',
      description:
        'Ordered by `created_at` then `id`; with `updated_since`, by `updated_at` then `id`. `amount` is the net: `gross_amount - fees_amount - refunds_amount`.',
    }),
  },
  { commonResponses, strictStatusCodes: true },
);
