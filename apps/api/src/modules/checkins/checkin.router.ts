import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import { tenantOf } from '../../http/locals';
import { getCheckin, listCheckins, recordCheckin, toCheckinResource } from './checkin.service';

const s = initServer();

export const checkinsRouter = s.router(contract.checkins, {
  list: async ({ query, res }) => {
    const page = await listCheckins(tenantOf(res), query);
    return { status: 200, body: { ...page, data: page.data.map(toCheckinResource) } };
  },
  get: async ({ params, res }) => ({
    status: 200,
    body: { data: toCheckinResource(await getCheckin(tenantOf(res), params.id)) },
  }),
  create: async ({ body, res }) => ({
    status: 201,
    body: { data: toCheckinResource(await recordCheckin(tenantOf(res), body)) },
  }),
});
