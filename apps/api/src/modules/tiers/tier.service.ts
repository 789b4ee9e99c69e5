import type { Tier as TierResource, TierCreate, TierStatus, TierUpdate } from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { badRequest, conflict, unprocessable } from '../../core/errors';
import { deleteAllOwned, findOwned, getOwned } from '../../db/owned';
import { inTransaction } from '../../db/driver';
import { isoOrNull } from '../../core/iso-time';
import { stampsOf } from '../../core/stamps';
import { resourceList, type ListFilters } from '../../db/resource-list';
import { recordChanges } from '../changes/change.service';
import { findEvent, isEventFinal } from '../events/event.service';
import { Tier } from './tier.entity';

/** The tier as the API renders it; `livemode` says whether it is live data or test data. */
export const toTierResource = (tier: Tier, livemode: boolean): TierResource => ({
  id: tier.id,
  event_id: tier.eventId,
  name: tier.name,
  description: tier.description ?? null,
  price: tier.price,
  currency: tier.currency,
  quantity_total: tier.quantityTotal ?? null,
  quantity_sold: tier.quantitySold,
  quantity_available:
    tier.quantityTotal == null ? null : Math.max(0, tier.quantityTotal - tier.quantitySold),
  max_per_order: tier.maxPerOrder ?? null,
  sales_start_at: isoOrNull(tier.salesStartAt),
  sales_end_at: isoOrNull(tier.salesEndAt),
  sort_order: tier.sortOrder,
  status: tier.status,
  ...stampsOf(tier, livemode),
});

/** `on_sale` reads as `sold_out` while nothing is left; the other states are the organiser's. */
function effectiveStatus(
  requested: Exclude<TierStatus, 'sold_out'>,
  total: number | null | undefined,
  sold: number,
): TierStatus {
  return requested === 'on_sale' && total != null && sold >= total ? 'sold_out' : requested;
}

/**
 * The tier list: the shared filters only, in the organiser's display order unless a sync asks for
 * change order.
 */
export const tierList = resourceList<Tier, ListFilters<'tiers'>>(Tier, undefined, (query) =>
  query.updated_since ? ['updatedAt', 'id'] : ['sortOrder', 'id'],
);

export const getTier = (
  ctx: TenantContext,
  id: string,
  options: { lock?: boolean } = {},
): Promise<Tier> => getOwned(ctx, Tier, 'tier', 'ticket tier', id, options);

/** Like `getTier`, but null instead of a 404, for services that answer differently (422). */
export const findTier = (
  ctx: TenantContext,
  id: string,
  options: { lock?: boolean } = {},
): Promise<Tier | null> => findOwned(ctx, Tier, 'tier', id, options);

function checkSalesWindow(tier: Pick<Tier, 'salesStartAt' | 'salesEndAt'>): void {
  if (tier.salesStartAt && tier.salesEndAt && tier.salesEndAt <= tier.salesStartAt) {
    throw badRequest('sales_end_at must be after sales_start_at');
  }
}

const toDate = (value: string | null | undefined): Date | null =>
  value === undefined || value === null ? null : new Date(value);

export function createTier(ctx: TenantContext, input: TierCreate): Promise<Tier> {
  return inTransaction(ctx, async (tx) => {
    // Locked: a tier added while its event is cancelled or changes currency would be wrong.
    const event = await findEvent(tx, input.event_id, { lock: true });
    if (!event)
      throw unprocessable(`event_id ${input.event_id} does not refer to an event`, 'unknown_event');
    if (isEventFinal(event)) {
      throw conflict(`cannot add a ticket tier to a ${event.status} event`, 'event_final');
    }
    const tier = tx.em.create(Tier, {
      organisationId: ctx.organisationId,
      eventId: event.id,
      name: input.name,
      description: input.description ?? null,
      price: input.price,
      currency: event.currency,
      quantityTotal: input.quantity_total ?? null,
      quantitySold: 0,
      maxPerOrder: input.max_per_order ?? null,
      salesStartAt: toDate(input.sales_start_at),
      salesEndAt: toDate(input.sales_end_at),
      sortOrder: input.sort_order ?? 0,
      status: effectiveStatus(input.status ?? 'on_sale', input.quantity_total, 0),
    });
    checkSalesWindow(tier);
    await recordChanges(tx, [{ type: 'tier.created', object: toTierResource(tier, tx.livemode) }]);
    return tier;
  });
}

export async function updateTier(ctx: TenantContext, id: string, input: TierUpdate): Promise<Tier> {
  return inTransaction(ctx, async (tx) => {
    const tier = await getTier(tx, id, { lock: true });
    if (Object.keys(input).length === 0) return tier;
    const event = await findEvent(tx, tier.eventId);
    if (event && isEventFinal(event)) {
      throw conflict(`the tier's event is ${event.status}; its tiers cannot change`, 'event_final');
    }
    if (input.quantity_total != null && input.quantity_total < tier.quantitySold) {
      throw conflict(
        `quantity_total cannot be lowered below the ${tier.quantitySold} tickets already sold`,
        'quantity_below_sold',
      );
    }
    if (input.name !== undefined) tier.name = input.name;
    if (input.description !== undefined) tier.description = input.description;
    if (input.price !== undefined) tier.price = input.price;
    if (input.quantity_total !== undefined) tier.quantityTotal = input.quantity_total;
    if (input.max_per_order !== undefined) tier.maxPerOrder = input.max_per_order;
    if (input.sales_start_at !== undefined) tier.salesStartAt = toDate(input.sales_start_at);
    if (input.sales_end_at !== undefined) tier.salesEndAt = toDate(input.sales_end_at);
    if (input.sort_order !== undefined) tier.sortOrder = input.sort_order;
    const requested = input.status ?? (tier.status === 'sold_out' ? 'on_sale' : tier.status);
    tier.status = effectiveStatus(requested, tier.quantityTotal, tier.quantitySold);
    checkSalesWindow(tier);
    // The flush stamps `updatedAt`; the change record renders the row as it is stored.
    await tx.em.flush();
    await recordChanges(tx, [{ type: 'tier.updated', object: toTierResource(tier, tx.livemode) }]);
    return tier;
  });
}

/**
 * Counts tickets sold (positive) or released by a cancellation (negative), under a row lock, and
 * refuses to oversell. For the order service; runs inside its transaction, which records the
 * tier's change once it is final (and flushed, for its `updatedAt`).
 */
export async function adjustSold(ctx: TenantContext, tierId: string, delta: number): Promise<Tier> {
  const tier = await getTier(ctx, tierId, { lock: true });
  countSold(tier, delta);
  return tier;
}

/**
 * `adjustSold` on a tier its caller has already locked (`getTier` with `lock`): a 409 `sold_out`
 * when fewer than `delta` tickets are left, else the count and the status (`sold_out` when full,
 * `on_sale` again when seats come back) move.
 */
export function countSold(tier: Tier, delta: number): void {
  const sold = tier.quantitySold + delta;
  if (sold < 0) throw new Error(`tier ${tier.id} would have negative sales`);
  if (delta > 0 && tier.quantityTotal != null && sold > tier.quantityTotal) {
    const left = Math.max(0, tier.quantityTotal - tier.quantitySold);
    throw conflict(
      left === 0
        ? 'this ticket tier is sold out'
        : `only ${left} ${left === 1 ? 'ticket is' : 'tickets are'} left in this tier`,
      'sold_out',
    );
  }
  tier.quantitySold = sold;
  const requested = tier.status === 'sold_out' ? 'on_sale' : tier.status;
  tier.status = effectiveStatus(requested, tier.quantityTotal, sold);
}

/**
 * Refuses a sale of `tier` at `at` unless the organiser has it on sale: not `paused` (a `hidden`
 * tier sells, to those given its link; a `sold_out` one is refused by `countSold`), and `at` within
 * its sales window, which closes at `sales_end_at` or, without one, when the event starts
 * (`eventStartsAt`). A 409 `tier_not_on_sale` naming the reason.
 */
export function checkOnSale(tier: Tier, at: Date, eventStartsAt: Date): void {
  if (tier.status === 'paused') {
    throw conflict('sales of this ticket tier are paused', 'tier_not_on_sale');
  }
  if (tier.salesStartAt && at < tier.salesStartAt) {
    throw conflict(
      `sales of this ticket tier open at ${tier.salesStartAt.toISOString()}`,
      'tier_not_on_sale',
    );
  }
  const closesAt = tier.salesEndAt ?? eventStartsAt;
  if (at >= closesAt) {
    throw conflict(
      `sales of this ticket tier closed at ${closesAt.toISOString()}`,
      'tier_not_on_sale',
    );
  }
}

/** Deletes all the organisation's ticket tiers (a test environment's reset); how many. */
export const deleteAllTiers = (ctx: TenantContext): Promise<number> => deleteAllOwned(ctx, Tier);
