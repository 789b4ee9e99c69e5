import type { contract } from '@boxoffice/contract';
import { Resource, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.orders;

export type Order = ItemOf<Routes['get']>;
export type OrderListParams = QueryOf<Routes['list']>;

/** Orders, with their buyer and totals; `status`, `email` and `reference` find them. */
export class Orders extends Resource<Routes> {}
