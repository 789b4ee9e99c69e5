import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import {
  createTier,
  getTier,
  listTiers,
  toTierResource,
  updateTier,
} from '../../modules/tiers/tier.service';
import { tenantOf } from '../locals';
import { write } from '../write';

const s = initServer();

export const tiersRouter = s.router(contract.tiers, {
  list: async ({ query, res }) => {
    const page = await listTiers(tenantOf(res), query);
    return { status: 200, body: { ...page, data: page.data.map(toTierResource) } };
  },
  get: async ({ params, res }) => ({
    status: 200,
    body: { data: toTierResource(await getTier(tenantOf(res), params.id)) },
  }),
  create: ({ body, res }) =>
    write(res, async (tx) => ({
      status: 201 as const,
      body: { data: toTierResource(await createTier(tx, body)) },
    })),
  update: ({ params, body, res }) =>
    write(res, async (tx) => ({
      status: 200 as const,
      body: { data: toTierResource(await updateTier(tx, params.id, body)) },
    })),
});
