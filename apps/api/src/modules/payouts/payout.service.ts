import type { Payout as PayoutResource, PayoutStatus } from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { deleteAllOwned, getOwned } from '../../db/owned';
import { inTransaction } from '../../db/driver';
import { iso, isoOrNull } from '../../core/iso-time';
import { stampsOf } from '../../core/stamps';
import { resourceList, type ListFilters } from '../../db/resource-list';
import { recordChanges } from '../changes/change.service';
import { Payout } from './payout.entity';

/** The payout as the API renders it; `livemode` says whether it is live data or test data. */
export const toPayoutResource = (payout: Payout, livemode: boolean): PayoutResource => ({
  id: payout.id,
  event_id: payout.eventId ?? null,
  gross_amount: payout.grossAmount,
  fees_amount: payout.feesAmount,
  refunds_amount: payout.refundsAmount,
  amount: payout.amount,
  currency: payout.currency,
  status: payout.status,
  period_start: iso(payout.periodStart),
  period_end: iso(payout.periodEnd),
  arrival_date: payout.arrivalDate ?? null,
  paid_at: isoOrNull(payout.paidAt),
  failure_reason: payout.failureReason ?? null,
  ...stampsOf(payout, livemode),
});

/** The payout list: the shared filters only. */
export const payoutList = resourceList<Payout, ListFilters<'payouts'>>(Payout);

export const getPayout = (ctx: TenantContext, id: string): Promise<Payout> =>
  getOwned(ctx, Payout, 'payout', 'payout', id);

export interface PayoutInput {
  eventId: string | null;
  grossAmount: number;
  feesAmount: number;
  refundsAmount: number;
  currency: string;
  status: PayoutStatus;
  periodStart: Date;
  periodEnd: Date;
  arrivalDate: string | null;
  paidAt: Date | null;
  failureReason: string | null;
  createdAt: Date;
}

/** Records a payout (payouts come from the payment side, not the public API). */
export function recordPayout(ctx: TenantContext, input: PayoutInput): Promise<Payout> {
  return inTransaction(ctx, async (tx) => {
    const payout = tx.em.create(Payout, {
      organisationId: ctx.organisationId,
      ...input,
      amount: input.grossAmount - input.feesAmount - input.refundsAmount,
      // The payment side says when it made the payout; it last changed when it was paid.
      updatedAt: input.paidAt ?? input.createdAt,
    });
    await recordChanges(tx, [
      { type: 'payout.created', object: toPayoutResource(payout, tx.livemode) },
    ]);
    return payout;
  });
}

/** Deletes all the organisation's payouts (a test environment's reset); how many. */
export const deleteAllPayouts = (ctx: TenantContext): Promise<number> =>
  deleteAllOwned(ctx, Payout);
