import type { APIPromise } from '../core/api-promise';
import type { RequestOptions } from '../internal/engine';
import { Resource } from './shared';
import type { Event, EventCreateParams, EventListParams, EventUpdateParams } from './types';

/** Events; `status`, `starts_after`/`starts_before` and `q` (name contains) find them. */
export class Events extends Resource<Event, EventListParams> {
  /**
   * Creates an event: a `draft` unless `status: 'published'`. `ends_at` must be after `starts_at`.
   *
   * @example
   * ```ts
   * const event = await client.events.create({
   *   name: 'Riverside Jazz Night',
   *   timezone: 'Europe/London',
   *   starts_at: '2026-06-01T19:00:00+01:00',
   *   ends_at: '2026-06-01T23:00:00+01:00',
   *   currency: 'GBP',
   * });
   * ```
   */
  create(body: EventCreateParams, options?: RequestOptions): APIPromise<Event> {
    return this.post(body, options);
  }

  /**
   * Changes some fields, or the status (`draft → published → completed`, or `cancelled`); any
   * other status change is a `ConflictError`.
   *
   * @example
   * ```ts
   * await client.events.update('evt_…', { status: 'published' });
   * ```
   */
  update(id: string, body: EventUpdateParams, options?: RequestOptions): APIPromise<Event> {
    return this.patch(id, body, options);
  }
}
