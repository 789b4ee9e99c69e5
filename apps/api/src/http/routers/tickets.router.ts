import { initServer } from '@ts-rest/express';
import { contract } from '@boxoffice/contract';
import { getTicket, listTickets, toTicketResource } from '../../modules/tickets/ticket.service';
import { readHandlers } from './read-handlers';

const s = initServer();

export const ticketsRouter = s.router(contract.tickets, {
  ...readHandlers({ name: 'tickets', list: listTickets, get: getTicket, render: toTicketResource }),
});
