import { Resource } from './shared';
import type { Ticket, TicketListParams } from './types';

/** Tickets; `code` finds the ticket of a scanned barcode. */
export class Tickets extends Resource<Ticket, TicketListParams> {}
