import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import { getPayout, listPayouts, toPayoutResource } from '../../modules/payouts/payout.service';
import { tenantOf } from '../locals';

const s = initServer();

export const payoutsRouter = s.router(contract.payouts, {
  list: async ({ query, res }) => {
    const page = await listPayouts(tenantOf(res), query);
    return { status: 200, body: { ...page, data: page.data.map(toPayoutResource) } };
  },
  get: async ({ params, res }) => ({
    status: 200,
    body: { data: toPayoutResource(await getPayout(tenantOf(res), params.id)) },
  }),
});
