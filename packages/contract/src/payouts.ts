import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  commonResponses,
  DateSchema,
  enumListParam,
  ErrorSchema,
  IdPathSchema,
  itemEnvelope,
  listEnvelope,
  PaginationQuerySchema,
  readRoute,
  textParam,
  TimestampSchema,
} from './common';

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
  event_id: textParam('event_id', 80),
  status: enumListParam('status', PAYOUT_STATUSES),
});
export type PayoutListQuery = z.input<typeof PayoutListQuerySchema>;

export const payoutsContract = c.router(
  {
    list: {
      method: 'GET',
      path: '/payouts',
      query: PayoutListQuerySchema,
      responses: { 200: listEnvelope(PayoutSchema) },
      metadata: readRoute,
      summary: 'List promoter payouts',
      description: '`amount` is the net: `gross_amount - fees_amount - refunds_amount`.',
    },
    get: {
      method: 'GET',
      path: '/payouts/:id',
      pathParams: IdPathSchema,
      responses: { 200: itemEnvelope(PayoutSchema), 404: ErrorSchema },
      metadata: readRoute,
      summary: 'Get a payout',
    },
  },
  { commonResponses, strictStatusCodes: true },
);
