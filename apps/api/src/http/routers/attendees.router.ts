import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import {
  getAttendee,
  listAttendees,
  toAttendeeResource,
} from '../../modules/attendees/attendee.service';
import { tenantOf } from '../locals';

const s = initServer();

export const attendeesRouter = s.router(contract.attendees, {
  list: async ({ query, res }) => {
    const page = await listAttendees(tenantOf(res), query);
    return { status: 200, body: { ...page, data: page.data.map(toAttendeeResource) } };
  },
  get: async ({ params, res }) => ({
    status: 200,
    body: { data: toAttendeeResource(await getAttendee(tenantOf(res), params.id)) },
  }),
});
