import { contract } from '@boxoffice/contract';
import type { APIPromise } from '../core/api-promise';
import type { PagePromise } from '../core/pagination';
import type { Engine, RequestOptions } from '../internal/engine';
import { itemOf, listOf, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.payouts;
const routes: Routes = contract.payouts;

export type Payout = ItemOf<Routes['get']>;
export type PayoutListParams = QueryOf<Routes['list']>;

export class Payouts {
  constructor(private readonly engine: Engine) {}

  /** Payouts to the organiser, oldest first. Await for one page; `for await` for every item. */
  list(query: PayoutListParams = {}, options?: RequestOptions): PagePromise<Payout> {
    return listOf(this.engine, routes.list, query, options);
  }

  /** One payout by id; a `NotFoundError` if it is not this organisation's. */
  get(id: string, options?: RequestOptions): APIPromise<Payout> {
    return itemOf(this.engine, routes.get, { params: { id } }, options);
  }
}
