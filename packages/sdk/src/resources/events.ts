import type { contract } from '@boxoffice/contract';
import type { APIPromise } from '../core/api-promise';
import type { RequestOptions } from '../internal/engine';
import { itemOf, Resource, type BodyOf, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.events;

export type Event = ItemOf<Routes['get']>;
export type EventListParams = QueryOf<Routes['list']>;
export type EventCreateParams = BodyOf<Routes['create']>;
export type EventUpdateParams = BodyOf<Routes['update']>;

/** Events; `status`, `starts_after`/`starts_before` and `q` (name contains) find them. */
export class Events extends Resource<Routes> {
  /** Creates an event: a `draft` unless `status: 'published'`. */
  create(body: EventCreateParams, options?: RequestOptions): APIPromise<Event> {
    return itemOf(this.engine, this.routes.create, { body }, options);
  }

  /** Changes some fields, or the status (`draft → published → completed`, or `cancelled`). */
  update(id: string, body: EventUpdateParams, options?: RequestOptions): APIPromise<Event> {
    return itemOf(this.engine, this.routes.update, { params: { id }, body }, options);
  }
}
