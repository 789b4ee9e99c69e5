import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import {
  createTier,
  getTier,
  listTiers,
  toTierResource,
  updateTier,
} from '../../modules/tiers/tier.service';
import { write } from '../write';
import { readHandlers } from './read-handlers';

const s = initServer();

export const tiersRouter = s.router(contract.tiers, {
  ...readHandlers({ name: 'tiers', list: listTiers, get: getTier, render: toTierResource }),
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
