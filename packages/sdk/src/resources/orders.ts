import { contract } from '@boxoffice/contract';
import type { APIPromise } from '../core/api-promise';
import type { PagePromise } from '../core/pagination';
import type { Engine, RequestOptions } from '../internal/engine';
import { itemOf, listOf, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.orders;
const routes: Routes = contract.orders;

export type Order = ItemOf<Routes['get']>;
export type OrderListParams = QueryOf<Routes['list']>;

export class Orders {
  constructor(private readonly engine: Engine) {}

  /** Orders, oldest first. Await for one page; `for await` for every item. */
  list(query: OrderListParams = {}, options?: RequestOptions): PagePromise<Order> {
    return listOf(this.engine, routes.list, query, options);
  }

  /** One order by id; a `NotFoundError` if it is not this organisation's. */
  get(id: string, options?: RequestOptions): APIPromise<Order> {
    return itemOf(this.engine, routes.get, { params: { id } }, options);
  }
}
