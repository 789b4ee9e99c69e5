import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import {
  createTier,
  getTier,
  listTiers,
  toTierResource,
  updateTier,
} from '../../modules/tiers/tier.service';
import { readHandlers } from './read-handlers';
import { writeHandlers } from './write-handlers';

const s = initServer();

export const tiersRouter = s.router(contract.tiers, {
  ...readHandlers({ name: 'tiers', list: listTiers, get: getTier, render: toTierResource }),
  ...writeHandlers({ create: createTier, update: updateTier, render: toTierResource }),
});
