import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import { getOrder, listOrders, toOrderResource } from '../../modules/orders/order.service';
import { readHandlers } from './read-handlers';

const s = initServer();

export const ordersRouter = s.router(contract.orders, {
  ...readHandlers({ name: 'orders', list: listOrders, get: getOrder, render: toOrderResource }),
});
