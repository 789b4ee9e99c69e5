import type { APIPromise } from '../core/api-promise';
import type { RequestOptions } from '../internal/engine';
import { Resource } from './shared';
import type { Tier, TierCreateParams, TierListParams, TierUpdateParams } from './types';

/** Ticket tiers, listed in display order (`sort_order`, then id). */
export class Tiers extends Resource<Tier, TierListParams> {
  /**
   * Adds a tier to an event; it takes the event's currency, and `price` is in its minor units.
   *
   * @example
   * ```ts
   * const tier = await client.tiers.create({
   *   event_id: 'evt_…',
   *   name: 'General admission',
   *   price: 2500,
   *   quantity_total: 300,
   * });
   * ```
   */
  create(body: TierCreateParams, options?: RequestOptions): APIPromise<Tier> {
    return this.post(body, options);
  }

  /**
   * Changes a tier; lowering `quantity_total` below `quantity_sold` is a `ConflictError`.
   *
   * @example
   * ```ts
   * await client.tiers.update('tier_…', { status: 'paused' });
   * ```
   */
  update(id: string, body: TierUpdateParams, options?: RequestOptions): APIPromise<Tier> {
    return this.patch(id, body, options);
  }
}
