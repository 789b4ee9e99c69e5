import type { contract } from '@boxoffice/contract';
import { Resource, type ItemOf, type QueryOf } from './shared';

type Routes = typeof contract.payouts;

export type Payout = ItemOf<Routes['get']>;
export type PayoutListParams = QueryOf<Routes['list']>;

/** Payouts to the organiser; `amount` is the net. */
export class Payouts extends Resource<Routes> {}
