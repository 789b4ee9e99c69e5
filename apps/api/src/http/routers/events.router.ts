import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import {
  createEvent,
  getEvent,
  listEvents,
  toEventResource,
  updateEvent,
} from '../../modules/events/event.service';
import { write } from '../write';
import { readHandlers } from './read-handlers';

const s = initServer();

export const eventsRouter = s.router(contract.events, {
  ...readHandlers({ name: 'events', list: listEvents, get: getEvent, render: toEventResource }),
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
