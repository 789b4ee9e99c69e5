import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import {
  createEvent,
  getEvent,
  listEvents,
  toEventResource,
  updateEvent,
} from '../../modules/events/event.service';
import { readHandlers } from './read-handlers';
import { writeHandlers } from './write-handlers';

const s = initServer();

export const eventsRouter = s.router(contract.events, {
  ...readHandlers({ name: 'events', list: listEvents, get: getEvent, render: toEventResource }),
  ...writeHandlers({ create: createEvent, update: updateEvent, render: toEventResource }),
});
