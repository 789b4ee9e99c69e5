import { contract } from '@boxoffice/contract';
import type { APIPromise } from '../core/api-promise';
import type { PagePromise } from '../core/pagination';
import type { Engine, RequestOptions } from '../internal/engine';
import { itemOf, listOf, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.tickets;
const routes: Routes = contract.tickets;

export type Ticket = ItemOf<Routes['get']>;
export type TicketListParams = QueryOf<Routes['list']>;

export class Tickets {
  constructor(private readonly engine: Engine) {}

  /** Tickets, oldest first; `code` finds the ticket of a scanned barcode. Await for one page; `for await` for every item. */
  list(query: TicketListParams = {}, options?: RequestOptions): PagePromise<Ticket> {
    return listOf(this.engine, routes.list, query, options);
  }

  /** One ticket by id; a `NotFoundError` if it is not this organisation's. */
  get(id: string, options?: RequestOptions): APIPromise<Ticket> {
    return itemOf(this.engine, routes.get, { params: { id } }, options);
  }
}
