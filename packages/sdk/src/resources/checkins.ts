import { contract } from '@boxoffice/contract';
import type { APIPromise } from '../core/api-promise';
import type { PagePromise } from '../core/pagination';
import type { Engine, RequestOptions } from '../internal/engine';
import { itemOf, listOf, type BodyOf, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.checkins;
const routes: Routes = contract.checkins;

export type Checkin = ItemOf<Routes['get']>;
export type CheckinListParams = QueryOf<Routes['list']>;
export type CheckinCreateParams = BodyOf<Routes['create']>;

export class Checkins {
  constructor(private readonly engine: Engine) {}

  /** Check-ins, oldest first; `since` filters by server receipt time. Await for one page; `for await` for every item. */
  list(query: CheckinListParams = {}, options?: RequestOptions): PagePromise<Checkin> {
    return listOf(this.engine, routes.list, query, options);
  }

  /** One check-in by id; a `NotFoundError` if it is not this organisation's. */
  get(id: string, options?: RequestOptions): APIPromise<Checkin> {
    return itemOf(this.engine, routes.get, { params: { id } }, options);
  }

  /**
   * Checks a ticket in (or out, with `direction: 'exit'`). The call's idempotency key is reused
   * across its retries, so a retried scan never admits twice.
   */
  create(body: CheckinCreateParams, options?: RequestOptions): APIPromise<Checkin> {
    return itemOf(this.engine, routes.create, { body }, options);
  }
}
