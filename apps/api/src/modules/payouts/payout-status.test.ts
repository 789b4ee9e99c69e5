import type { PayoutStatus } from '@boxoffice/contract';
import { describe, expect, it } from 'vitest';
import { buildPayout, changesOf, contextOf } from '../../../test/fixtures';
import { createTenant } from '../../../test/setup';
import { advancePayout, DEFAULT_FAILURE_REASON } from './payout-status.service';
import { getPayout, toPayoutResource } from './payout.service';

/** The `payout.updated` records of one payout, oldest first. */
const payoutChanges = async (organisationId: string, payoutId: string) =>
  (await changesOf(organisationId)).filter(
    (c) => c.object_id === payoutId && c.type === 'payout.updated',
  );

/** The stored payout as the API renders it. */
const stored = async (organisationId: string, id: string) =>
  toPayoutResource(await getPayout(await contextOf(organisationId), id), true);

describe('advancePayout', () => {
  it('moves a payout pending → in_transit → paid, recording each step', async () => {
    const { organisationId } = await createTenant();
    const payout = await buildPayout(organisationId, { status: 'pending' });

    const moving = await advancePayout(await contextOf(organisationId), payout.id);
    expect(moving).toMatchObject({ status: 'in_transit', paidAt: null, failureReason: null });
    expect(moving.arrivalDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const inTransit = await stored(organisationId, payout.id);

    const paid = await advancePayout(await contextOf(organisationId), payout.id);
    expect(paid.status).toBe('paid');
    expect(paid.paidAt).toEqual(paid.updatedAt);
    expect(paid.arrivalDate).toBe(paid.updatedAt.toISOString().slice(0, 10));

    const changes = await payoutChanges(organisationId, payout.id);
    expect(changes.map((c) => c.data)).toEqual([
      inTransit,
      await stored(organisationId, payout.id),
    ]);
  });

  it('fails a payout in transit, and a pending one by way of in_transit', async () => {
    const { organisationId } = await createTenant();
    const moving = await buildPayout(organisationId, { status: 'in_transit' });
    const failed = await advancePayout(await contextOf(organisationId), moving.id, {
      fail: true,
    });
    expect(failed).toMatchObject({ status: 'failed', failureReason: DEFAULT_FAILURE_REASON });
    expect((await payoutChanges(organisationId, moving.id)).map((c) => c.data.status)).toEqual([
      'failed',
    ]);

    const pending = await buildPayout(organisationId, { status: 'pending' });
    const bounced = await advancePayout(await contextOf(organisationId), pending.id, {
      fail: true,
      failureReason: 'The account is closed.',
    });
    expect(bounced).toMatchObject({ status: 'failed', failureReason: 'The account is closed.' });
    const changes = await payoutChanges(organisationId, pending.id);
    expect(changes.map((c) => c.data.status)).toEqual(['in_transit', 'failed']);
    expect(changes.at(-1)?.data).toEqual(await stored(organisationId, pending.id));
  });

  it('refuses a payout that is final or not the organisation’s, changing nothing', async () => {
    const { organisationId } = await createTenant();
    const other = await createTenant();
    const foreign = await buildPayout(other.organisationId, { status: 'pending' });
    const finals: PayoutStatus[] = ['paid', 'failed', 'cancelled'];
    for (const status of finals) {
      const payout = await buildPayout(organisationId, { status });
      const before = await stored(organisationId, payout.id);
      for (const fail of [false, true]) {
        await expect(
          advancePayout(await contextOf(organisationId), payout.id, { fail }),
          `${status}, fail: ${fail}`,
        ).rejects.toMatchObject({ status: 409, code: 'payout_final' });
      }
      expect(await stored(organisationId, payout.id)).toEqual(before);
      expect(await payoutChanges(organisationId, payout.id)).toEqual([]);
    }
    for (const id of [foreign.id, 'po_0000000000000000000000', 'evt_0000000000000000000000']) {
      await expect(advancePayout(await contextOf(organisationId), id), id).rejects.toMatchObject({
        status: 404,
        code: 'not_found',
      });
    }
    expect(await stored(other.organisationId, foreign.id)).toMatchObject({ status: 'pending' });
    expect(await payoutChanges(other.organisationId, foreign.id)).toEqual([]);
  });
});
