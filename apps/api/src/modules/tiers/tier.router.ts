import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import { tenantOf } from '../../http/locals';
import { createTier, getTier, listTiers, toTierResource, updateTier } from './tier.service';

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
  create: async ({ body, res }) => ({
    status: 201,
    body: { data: toTierResource(await createTier(tenantOf(res), body)) },
  }),
  update: async ({ params, body, res }) => ({
    status: 200,
    body: { data: toTierResource(await updateTier(tenantOf(res), params.id, body)) },
  }),
});
