import type { contract } from '@boxoffice/contract';
import { Resource, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.tickets;

export type Ticket = ItemOf<Routes['get']>;
export type TicketListParams = QueryOf<Routes['list']>;

/** Tickets; `code` finds the ticket of a scanned barcode. */
export class Tickets extends Resource<Routes> {}
