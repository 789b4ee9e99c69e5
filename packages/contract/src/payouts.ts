import { z } from 'zod';
import { DateSchema, PaginationQuerySchema, readRoutes, TimestampSchema } from './common';
import { byEvent, byStatus, sinceUpdated } from './list-filters';
import { resourceRouter } from './resource-router';
import { resourceSchema } from './resource-schema';

export const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'cancelled', 'failed'] as const;
export const PayoutStatusSchema = z.enum(PAYOUT_STATUSES);
export type PayoutStatus = z.infer<typeof PayoutStatusSchema>;

export const PayoutSchema = resourceSchema({
  /** The payout's id, `po_…`. */
  id: z.string(),
  /** The event it pays out for, or `null` for several. */
  event_id: z.string().nullable(),
  /** Sales in the period, in minor units of `currency`. */
  gross_amount: z.number().int(),
  /** Fees deducted, in minor units. */
  fees_amount: z.number().int(),
  /** Refunds deducted, in minor units. */
  refunds_amount: z.number().int(),
  /** What is paid: `gross_amount - fees_amount - refunds_amount`, in minor units. */
  amount: z.number().int(),
  /** The ISO 4217 currency of the amounts. */
  currency: z.string(),
  /**
   * `pending → in_transit → paid`; or `cancelled` (from `pending`), `failed` (from `in_transit`).
   */
  status: PayoutStatusSchema,
  /** The start of the sales period it covers (ISO-8601, UTC). */
  period_start: TimestampSchema,
  /** The end of the sales period it covers (ISO-8601, UTC). */
  period_end: TimestampSchema,
  /** The calendar date the money is expected (`YYYY-MM-DD`), or `null`. */
  arrival_date: DateSchema.nullable(),
  /** When it was paid (ISO-8601, UTC), or `null`. */
  paid_at: TimestampSchema.nullable(),
  /** Why it failed, or `null`. */
  failure_reason: z.string().nullable(),
});
export type Payout = z.infer<typeof PayoutSchema>;

export const PayoutListQuerySchema = PaginationQuerySchema.extend({
  ...byEvent,
  ...byStatus(PAYOUT_STATUSES),
  ...sinceUpdated,
});
export type PayoutListQuery = z.input<typeof PayoutListQuerySchema>;

export const payoutsContract = resourceRouter(
  readRoutes({
    path: '/payouts',
    item: PayoutSchema,
    query: PayoutListQuerySchema,
    plural: 'promoter payouts',
    singular: 'a payout',
    description:
      'Ordered by `created_at` then `id`; with `updated_since`, by `updated_at` then `id`. `amount` is the net: `gross_amount - fees_amount - refunds_amount`.',
  }),
);
