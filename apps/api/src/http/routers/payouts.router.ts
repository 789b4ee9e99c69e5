import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import { getPayout, listPayouts, toPayoutResource } from '../../modules/payouts/payout.service';
import { readHandlers } from './read-handlers';

const s = initServer();

export const payoutsRouter = s.router(contract.payouts, {
  ...readHandlers({ name: 'payouts', list: listPayouts, get: getPayout, render: toPayoutResource }),
});
