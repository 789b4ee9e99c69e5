import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import { tenantOf } from '../../http/locals';
import { getTicket, listTickets, toTicketResource } from './ticket.service';

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
