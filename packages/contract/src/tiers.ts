import { z } from 'zod';
import {
  createRoute,
  MoneySchema,
  PaginationQuerySchema,
  readRoutes,
  TextSchema,
  TimestampSchema,
  updateRoute,
} from './common';
import { byEvent, byStatus, sinceUpdated } from './list-filters';
import { resourceRouter } from './resource-router';
import { resourceSchema } from './resource-schema';

export const TIER_STATUSES = ['on_sale', 'paused', 'hidden', 'sold_out'] as const;
export const TierStatusSchema = z.enum(TIER_STATUSES);
export type TierStatus = z.infer<typeof TierStatusSchema>;
/** `sold_out` is set by the server when everything is sold; it cannot be written. */
export const WritableTierStatusSchema = z.enum(['on_sale', 'paused', 'hidden']);

export const TierSchema = resourceSchema({
  /** The tier's id, `tier_…`. */
  id: z.string(),
  /** The event it sells tickets for, `evt_…`. */
  event_id: z.string(),
  /** The tier's name, e.g. `General admission`. */
  name: z.string(),
  /** Free text about the tier, or `null`. */
  description: z.string().nullable(),
  /** The price of one ticket in minor units of `currency` (2500 is £25.00). */
  price: z.number().int(),
  /** The event's currency (ISO 4217). Set by the server. */
  currency: z.string(),
  /** How many tickets the tier has, or `null` for unlimited. */
  quantity_total: z.number().int().nullable(),
  /**
   * How many tickets have been sold (cancelled and refunded orders give theirs back). Set by the
   * server.
   */
  quantity_sold: z.number().int(),
  /** `quantity_total - quantity_sold`, or `null` when unlimited. Set by the server. */
  quantity_available: z.number().int().nullable(),
  /** The most tickets of this tier one order may have, or `null` for no limit. */
  max_per_order: z.number().int().nullable(),
  /** When sales open (ISO-8601, UTC), or `null` for at once. */
  sales_start_at: TimestampSchema.nullable(),
  /** When sales close (ISO-8601, UTC), or `null` for when the event starts. */
  sales_end_at: TimestampSchema.nullable(),
  /** Where the tier comes in lists: lowest first, then by id. */
  sort_order: z.number().int(),
  /**
   * `on_sale`, `paused`, `hidden` or `sold_out` (shown by the server while an `on_sale` tier has
   * nothing left).
   */
  status: TierStatusSchema,
});
export type Tier = z.infer<typeof TierSchema>;

const writableTierFields = {
  /** The tier's name, 1–200 characters (trimmed). */
  name: TextSchema.trim().min(1).max(200),
  /** Free text about the tier, up to 5,000 characters, or `null`. */
  description: TextSchema.max(5000).nullable(),
  /**
   * The price of one ticket in minor units of the event's currency: an integer (2500 is £25.00).
   */
  price: MoneySchema,
  /**
   * How many tickets the tier has, or `null` for unlimited; lowering it below `quantity_sold` is a
   * 409.
   */
  quantity_total: z.number().int().nonnegative().max(10_000_000).nullable(),
  /** The most tickets of this tier one order may have (1–1,000), or `null` for no limit. */
  max_per_order: z.number().int().positive().max(1000).nullable(),
  /** When sales open: ISO-8601 with an offset, or `null` for at once. */
  sales_start_at: TimestampSchema.nullable(),
  /** When sales close: ISO-8601 with an offset, after `sales_start_at`; or `null`. */
  sales_end_at: TimestampSchema.nullable(),
  /** Where the tier comes in lists, lowest first (-1,000,000 to 1,000,000). */
  sort_order: z.number().int().min(-1_000_000).max(1_000_000),
  /** `on_sale`, `paused` or `hidden` (`sold_out` is the server's to set). */
  status: WritableTierStatusSchema,
};

export const TierCreateSchema = z
  .object({
    /** The event to add the tier to, `evt_…`; an unknown one is a 422. */
    event_id: z.string().min(1).max(80),
    /** The tier's name, 1–200 characters (trimmed). */
    name: writableTierFields.name,
    /**
     * The price of one ticket in minor units of the event's currency: an integer (2500 is £25.00).
     */
    price: writableTierFields.price,
    /** Free text about the tier, up to 5,000 characters, or `null` (the default). */
    description: writableTierFields.description.optional(),
    /** How many tickets the tier has; `null` (the default) for unlimited. */
    quantity_total: writableTierFields.quantity_total.optional(),
    /**
     * The most tickets of this tier one order may have (1–1,000); `null` (the default) for no
     * limit.
     */
    max_per_order: writableTierFields.max_per_order.optional(),
    /** When sales open: ISO-8601 with an offset; `null` (the default) for at once. */
    sales_start_at: writableTierFields.sales_start_at.optional(),
    /**
     * When sales close: ISO-8601 with an offset, after `sales_start_at`; `null` (the default) for
     * none.
     */
    sales_end_at: writableTierFields.sales_end_at.optional(),
    /** Where the tier comes in lists, lowest first; default 0. */
    sort_order: writableTierFields.sort_order.optional(),
    /** `on_sale` (the default), `paused` or `hidden`. */
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

export const tiersContract = resourceRouter({
  ...readRoutes({
    path: '/tiers',
    item: TierSchema,
    query: TierListQuerySchema,
    plural: 'ticket tiers',
    singular: 'a ticket tier',
    description:
      'Ordered by `sort_order` then `id`; with `updated_since`, by `updated_at` then `id`.',
  }),
  create: createRoute({
    path: '/tiers',
    item: TierSchema,
    body: TierCreateSchema,
    summary: 'Create a ticket tier',
    description:
      'The tier takes its event’s currency. An unknown `event_id` is a 422; a cancelled or completed event is a 409.',
  }),
  update: updateRoute({
    path: '/tiers',
    item: TierSchema,
    body: TierUpdateSchema,
    summary: 'Update a ticket tier',
    description: 'Lowering `quantity_total` below `quantity_sold` is a 409.',
  }),
});
