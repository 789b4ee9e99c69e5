import type { contract } from '@boxoffice/contract';
import type { APIPromise } from '../core/api-promise';
import type { RequestOptions } from '../internal/engine';
import { itemOf, Resource, type BodyOf, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.checkins;

export type Checkin = ItemOf<Routes['get']>;
export type CheckinListParams = QueryOf<Routes['list']>;
export type CheckinCreateParams = BodyOf<Routes['create']>;

/** Check-ins, listed by server receipt time; `since` filters on it. */
export class Checkins extends Resource<Routes> {
  /**
   * Checks a ticket in (or out, with `direction: 'exit'`). The call's idempotency key is reused
   * across its retries, so a retried scan never admits twice.
   */
  create(body: CheckinCreateParams, options?: RequestOptions): APIPromise<Checkin> {
    return itemOf(this.engine, this.routes.create, { body }, options);
  }
}
