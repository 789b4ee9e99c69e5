import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  commonResponses,
  IdPathSchema,
  itemEnvelope,
  MoneySchema,
  mutationResponses,
  PaginationQuerySchema,
  readRoutes,
  TextSchema,
  TimestampSchema,
  writeRoute,
} from './common';
import { byEvent, byStatus, sinceUpdated } from './list-filters';

const c = initContract();

export const TIER_STATUSES = ['on_sale', 'paused', 'hidden', 'sold_out'] as const;
export const TierStatusSchema = z.enum(TIER_STATUSES);
export type TierStatus = z.infer<typeof TierStatusSchema>;
/** `sold_out` is set by the server when everything is sold; it cannot be written. */
export const WritableTierStatusSchema = z.enum(['on_sale', 'paused', 'hidden']);

export const TierSchema = z.object({
  id: z.string(),
  event_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  price: z.number().int(),
  currency: z.string(),
  quantity_total: z.number().int().nullable(),
  quantity_sold: z.number().int(),
  quantity_available: z.number().int().nullable(),
  max_per_order: z.number().int().nullable(),
  sales_start_at: TimestampSchema.nullable(),
  sales_end_at: TimestampSchema.nullable(),
  sort_order: z.number().int(),
  status: TierStatusSchema,
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type Tier = z.infer<typeof TierSchema>;

const writableTierFields = {
  name: TextSchema.trim().min(1).max(200),
  description: TextSchema.max(5000).nullable(),
  price: MoneySchema,
  quantity_total: z.number().int().nonnegative().max(10_000_000).nullable(),
  max_per_order: z.number().int().positive().max(1000).nullable(),
  sales_start_at: TimestampSchema.nullable(),
  sales_end_at: TimestampSchema.nullable(),
  sort_order: z.number().int().min(-1_000_000).max(1_000_000),
  status: WritableTierStatusSchema,
};

export const TierCreateSchema = z
  .object({
    event_id: z.string().min(1).max(80),
    name: writableTierFields.name,
    price: writableTierFields.price,
    description: writableTierFields.description.optional(),
    quantity_total: writableTierFields.quantity_total.optional(),
    max_per_order: writableTierFields.max_per_order.optional(),
    sales_start_at: writableTierFields.sales_start_at.optional(),
    sales_end_at: writableTierFields.sales_end_at.optional(),
    sort_order: writableTierFields.sort_order.optional(),
    status: writableTierFields.status.optional(),
  })
  .strict();
export type TierCreate = z.infer<typeof TierCreateSchema>;

export const TierUpdateSchema = z.object(writableTierFields).partial().strict();
export type TierUpdate = z.infer<typeof TierUpdateSchema>;

export const TierListQuerySchema = PaginationQuerySchema.extend({
  ...byEvent,
  ...byStatus(TIER_STATUSES),
  ...sinceUpdated,
});
export type TierListQuery = z.input<typeof TierListQuerySchema>;

export const tiersContract = c.router(
  {
    ...readRoutes({
      path: '/tiers',
      item: TierSchema,
      query: TierListQuerySchema,
      plural: 'ticket tiers',
      singular: 'a ticket tier',
      description:
        'Ordered by `sort_order` then `id`; with `updated_since`, by `updated_at` then `id`.',
    }),
    create: {
      method: 'POST',
      path: '/tiers',
      body: TierCreateSchema,
      responses: { 201: itemEnvelope(TierSchema), ...mutationResponses },
      metadata: writeRoute,
      summary: 'Create a ticket tier',
      description:
        'The tier takes its event’s currency. An unknown `event_id` is a 422; a cancelled or completed event is a 409.',
    },
    update: {
      method: 'PATCH',
      path: '/tiers/:id',
      pathParams: IdPathSchema,
      body: TierUpdateSchema,
      responses: { 200: itemEnvelope(TierSchema), ...mutationResponses },
      metadata: writeRoute,
      summary: 'Update a ticket tier',
      description: 'Lowering `quantity_total` below `quantity_sold` is a 409.',
    },
  },
  { commonResponses, strictStatusCodes: true },
);
