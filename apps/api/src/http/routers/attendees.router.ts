import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import {
  getAttendee,
  listAttendees,
  toAttendeeResource,
} from '../../modules/attendees/attendee.service';
import { readHandlers } from './read-handlers';

const s = initServer();

export const attendeesRouter = s.router(contract.attendees, {
  ...readHandlers({
    name: 'attendees',
    list: listAttendees,
    get: getAttendee,
    render: toAttendeeResource,
  }),
});
