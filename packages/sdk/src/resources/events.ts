import { contract } from '@boxoffice/contract';
import type { APIPromise } from '../core/api-promise';
import type { PagePromise } from '../core/pagination';
import type { Engine, RequestOptions } from '../internal/engine';
import { itemOf, listOf, type BodyOf, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.events;
const routes: Routes = contract.events;

export type Event = ItemOf<Routes['get']>;
export type EventListParams = QueryOf<Routes['list']>;
export type EventCreateParams = BodyOf<Routes['create']>;
export type EventUpdateParams = BodyOf<Routes['update']>;

export class Events {
  constructor(private readonly engine: Engine) {}

  /** Events, oldest first (by `updated_at` with `updated_since`). Await for one page; `for await` for every item. */
  list(query: EventListParams = {}, options?: RequestOptions): PagePromise<Event> {
    return listOf(this.engine, routes.list, query, options);
  }

  /** One event by id; a `NotFoundError` if it is not this organisation's. */
  get(id: string, options?: RequestOptions): APIPromise<Event> {
    return itemOf(this.engine, routes.get, { params: { id } }, options);
  }

  /**
   * Creates an event: a `draft` unless `status: 'published'`.
   */
  create(body: EventCreateParams, options?: RequestOptions): APIPromise<Event> {
    return itemOf(this.engine, routes.create, { body }, options);
  }

  /** Changes some fields, or the status (`draft → published → completed`, or `cancelled`). */
  update(id: string, body: EventUpdateParams, options?: RequestOptions): APIPromise<Event> {
    return itemOf(this.engine, routes.update, { params: { id }, body }, options);
  }
}
