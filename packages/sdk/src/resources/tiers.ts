import { contract } from '@boxoffice/contract';
import type { APIPromise } from '../core/api-promise';
import type { PagePromise } from '../core/pagination';
import type { Engine, RequestOptions } from '../internal/engine';
import { itemOf, listOf, type BodyOf, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.tiers;
const routes: Routes = contract.tiers;

export type Tier = ItemOf<Routes['get']>;
export type TierListParams = QueryOf<Routes['list']>;
export type TierCreateParams = BodyOf<Routes['create']>;
export type TierUpdateParams = BodyOf<Routes['update']>;

export class Tiers {
  constructor(private readonly engine: Engine) {}

  /** Ticket tiers in display order (`sort_order`, then id). Await for one page; `for await` for every item. */
  list(query: TierListParams = {}, options?: RequestOptions): PagePromise<Tier> {
    return listOf(this.engine, routes.list, query, options);
  }

  /** One ticket tier by id; a `NotFoundError` if it is not this organisation's. */
  get(id: string, options?: RequestOptions): APIPromise<Tier> {
    return itemOf(this.engine, routes.get, { params: { id } }, options);
  }

  /**
   * Adds a tier to an event; it takes the event's currency.
   */
  create(body: TierCreateParams, options?: RequestOptions): APIPromise<Tier> {
    return itemOf(this.engine, routes.create, { body }, options);
  }

  /** Changes a tier; lowering `quantity_total` below `quantity_sold` is a `ConflictError`. */
  update(id: string, body: TierUpdateParams, options?: RequestOptions): APIPromise<Tier> {
    return itemOf(this.engine, routes.update, { params: { id }, body }, options);
  }
}
