import { Resource } from './shared';
import type { Order, OrderListParams } from './types';

/** Orders, with their buyer and totals; `status`, `email` and `reference` find them. */
export class Orders extends Resource<Order, OrderListParams> {}
