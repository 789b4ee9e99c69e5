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

/** A payout's next status, as the payment side reports it: `paid` stamps `paid_at`. */
export function advancePayout(
  ctx: TenantContext,
  id: string,
  status: PayoutStatus,
  details: { at?: Date; failureReason?: string } = {},
): Promise<Payout> {
  return inTransaction(ctx, async (tx) => {
    const payout = await getOwned(tx, Payout, 'payout', 'payout', id, { lock: true });
    if (!NEXT[payout.status].includes(status)) {
      throw conflict(`payout cannot go from ${payout.status} to ${status}`, 'illegal_transition');
    }
    const at = details.at ?? clock(tx.em);
    payout.status = status;
    if (status === 'paid') payout.paidAt = at;
    if (status === 'failed') payout.failureReason = details.failureReason ?? 'failed';
    payout.updatedAt = at;
    await tx.em.flush();
    await recordChanges(tx, [
      { type: 'payout.updated', object: toPayoutResource(payout, tx.livemode) },
    ]);
    return payout;
  });
}
