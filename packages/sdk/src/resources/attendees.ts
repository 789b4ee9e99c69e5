import { contract } from '@boxoffice/contract';
import type { APIPromise } from '../core/api-promise';
import type { PagePromise } from '../core/pagination';
import type { Engine, RequestOptions } from '../internal/engine';
import { itemOf, listOf, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.attendees;
const routes: Routes = contract.attendees;

export type Attendee = ItemOf<Routes['get']>;
export type AttendeeListParams = QueryOf<Routes['list']>;

export class Attendees {
  constructor(private readonly engine: Engine) {}

  /** Attendees, oldest first; `checked_in` filters by presence. Await for one page; `for await` for every item. */
  list(query: AttendeeListParams = {}, options?: RequestOptions): PagePromise<Attendee> {
    return listOf(this.engine, routes.list, query, options);
  }

  /** One attendee by id; a `NotFoundError` if it is not this organisation's. */
  get(id: string, options?: RequestOptions): APIPromise<Attendee> {
    return itemOf(this.engine, routes.get, { params: { id } }, options);
  }
}
