import type { contract } from '@boxoffice/contract';
import type { APIPromise } from '../core/api-promise';
import type { RequestOptions } from '../internal/engine';
import { itemOf, Resource, type BodyOf, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.tiers;

export type Tier = ItemOf<Routes['get']>;
export type TierListParams = QueryOf<Routes['list']>;
export type TierCreateParams = BodyOf<Routes['create']>;
export type TierUpdateParams = BodyOf<Routes['update']>;

/** Ticket tiers, listed in display order (`sort_order`, then id). */
export class Tiers extends Resource<Routes> {
  /** Adds a tier to an event; it takes the event's currency. */
  create(body: TierCreateParams, options?: RequestOptions): APIPromise<Tier> {
    return itemOf(this.engine, this.routes.create, { body }, options);
  }

  /** Changes a tier; lowering `quantity_total` below `quantity_sold` is a `ConflictError`. */
  update(id: string, body: TierUpdateParams, options?: RequestOptions): APIPromise<Tier> {
    return itemOf(this.engine, this.routes.update, { params: { id }, body }, options);
  }
}
