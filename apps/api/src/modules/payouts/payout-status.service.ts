import type { PayoutStatus } from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { conflict } from '../../core/errors';
import { getOwned } from '../../db/owned';
import { clock, inTransaction } from '../../db/driver';
import { recordChanges } from '../changes/change.service';
import { Payout } from './payout.entity';
import { toPayoutResource } from './payout.service';

const NEXT: Record<PayoutStatus, readonly PayoutStatus[]> = {
  pending: ['in_transit', 'cancelled'],
  in_transit: ['paid', 'failed'],
  paid: [],
  cancelled: [],
  failed: [],
};

/** How long a payout in transit takes to arrive, as `arrival_date` announces it. */
const TRANSIT_DAYS = 2;

const isoDate = (at: Date): string => at.toISOString().slice(0, 10);

/** Moves a locked payout to `status` (allowed by NEXT), stamped `at`; records `payout.updated`. */
async function moveTo(
  tx: TenantContext,
  payout: Payout,
  status: PayoutStatus,
  details: { at: Date; failureReason?: string },
): Promise<void> {
  if (!NEXT[payout.status].includes(status)) {
    throw conflict(`payout cannot go from ${payout.status} to ${status}`, 'illegal_transition');
  }
  const { at } = details;
  payout.status = status;
  if (status === 'in_transit') {
    payout.arrivalDate ??= isoDate(new Date(at.getTime() + TRANSIT_DAYS * 86_400_000));
  }
  if (status === 'paid') {
    payout.paidAt = at;
    payout.arrivalDate = isoDate(at);
  }
  if (status === 'failed') payout.failureReason = details.failureReason ?? 'failed';
  payout.updatedAt = at;
  await tx.em.flush();
  await recordChanges(tx, [
    { type: 'payout.updated', object: toPayoutResource(payout, tx.livemode) },
  ]);
}

/**
 * A payout's next status, as the payment side reports it: `in_transit` announces an
 * `arrival_date` (unless it has one), `paid` stamps `paid_at` and the day it arrived. A 409
 * `illegal_transition` for a move NEXT does not allow.
 */
export function transitionPayout(
  ctx: TenantContext,
  id: string,
  status: PayoutStatus,
  details: { at?: Date; failureReason?: string } = {},
): Promise<Payout> {
  return inTransaction(ctx, async (tx) => {
    const payout = await getOwned(tx, Payout, 'payout', 'payout', id, { lock: true });
    await moveTo(tx, payout, status, { ...details, at: details.at ?? clock(tx.em) });
    return payout;
  });
}

/** The reason a payout failed by `advancePayout` gives, unless told another. */
export const DEFAULT_FAILURE_REASON = 'The bank returned the payout.';

/**
 * Moves a payout one step on its way, in one transaction: `pending → in_transit → paid`; with
 * `fail`, to `failed` instead — a pending payout by way of `in_transit`, since only a payout on its
 * way can fail (a `payout.updated` record for each step). 404 for a payout not of this
 * organisation; 409 `payout_final` for one already `paid`, `failed` or `cancelled`, changing
 * nothing.
 */
export function advancePayout(
  ctx: TenantContext,
  id: string,
  options: { fail?: boolean; failureReason?: string; at?: Date } = {},
): Promise<Payout> {
  return inTransaction(ctx, async (tx) => {
    const payout = await getOwned(tx, Payout, 'payout', 'payout', id, { lock: true });
    if (NEXT[payout.status].length === 0) {
      throw conflict(`the payout is already ${payout.status}; it cannot change`, 'payout_final');
    }
    const at = options.at ?? clock(tx.em);
    if (payout.status === 'pending') {
      await moveTo(tx, payout, 'in_transit', { at });
      if (!options.fail) return payout;
    }
    await moveTo(tx, payout, options.fail ? 'failed' : 'paid', {
      at,
      failureReason: options.failureReason ?? DEFAULT_FAILURE_REASON,
    });
    return payout;
  });
}
