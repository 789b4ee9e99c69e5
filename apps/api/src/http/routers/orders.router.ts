import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import { getOrder, listOrders, toOrderResource } from '../../modules/orders/order.service';
import { tenantOf } from '../locals';

const s = initServer();

export const ordersRouter = s.router(contract.orders, {
  list: async ({ query, res }) => {
    const page = await listOrders(tenantOf(res), query);
    return { status: 200, body: { ...page, data: page.data.map(toOrderResource) } };
  },
  get: async ({ params, res }) => ({
    status: 200,
    body: { data: toOrderResource(await getOrder(tenantOf(res), params.id)) },
  }),
});
