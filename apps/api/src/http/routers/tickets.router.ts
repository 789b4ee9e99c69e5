import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import { getTicket, listTickets, toTicketResource } from '../../modules/tickets/ticket.service';
import { tenantOf } from '../locals';

const s = initServer();

export const ticketsRouter = s.router(contract.tickets, {
  list: async ({ query, res }) => {
    const page = await listTickets(tenantOf(res), query);
    return { status: 200, body: { ...page, data: page.data.map(toTicketResource) } };
  },
  get: async ({ params, res }) => ({
    status: 200,
    body: { data: toTicketResource(await getTicket(tenantOf(res), params.id)) },
  }),
});
