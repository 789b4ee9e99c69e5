import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import { tenantOf } from '../../http/locals';
import { eventHasTiers } from '../tiers/tier.service';
import { createEvent, getEvent, listEvents, toEventResource, updateEvent } from './event.service';

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
  create: async ({ body, res }) => ({
    status: 201,
    body: { data: toEventResource(await createEvent(tenantOf(res), body)) },
  }),
  update: async ({ params, body, res }) => {
    const ctx = tenantOf(res);
    const event = await updateEvent(ctx, params.id, body, (eventId) => eventHasTiers(ctx, eventId));
    return { status: 200, body: { data: toEventResource(event) } };
  },
});
