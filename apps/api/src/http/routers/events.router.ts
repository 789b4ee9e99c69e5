import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import {
  createEvent,
  getEvent,
  listEvents,
  toEventResource,
  updateEvent,
} from '../../modules/events/event.service';
import { tenantOf } from '../locals';
import { write } from '../write';

const s = initServer();

export const eventsRouter = s.router(contract.events, {
  list: async ({ query, res }) => {
    const page = await listEvents(tenantOf(res), query);
    return { status: 200, body: { ...page, data: page.data.map(toEventResource) } };
  },
  get: async ({ params, res }) => ({
    status: 200,
    body: { data: toEventResource(await getEvent(tenantOf(res), params.id)) },
  }),
  create: ({ body, res }) =>
    write(res, async (tx) => ({
      status: 201 as const,
      body: { data: toEventResource(await createEvent(tx, body)) },
    })),
  update: ({ params, body, res }) =>
    write(res, async (tx) => ({
      status: 200 as const,
      body: { data: toEventResource(await updateEvent(tx, params.id, body)) },
    })),
});
