import { enumListParam, textParam, timestampParam } from './common';

// Filters several lists share, spread into their query schemas. Not exported from the package:
// each list's schema is its public shape.

/** `event_id`: only the items of one event. */
export const byEvent = {
  /** Only the items of this event (`evt_…`). */
  event_id: textParam('event_id', 80),
};

/** `status`: one or more of the resource's statuses. */
export const byStatus = <T extends string>(statuses: readonly [T, ...T[]]) => ({
  /** Only items in one of these statuses: one, or an array of several. */
  status: enumListParam('status', statuses),
});

/** `updated_since`: a sync's filter, which also orders the list by `updated_at`. */
export const sinceUpdated = {
  /**
   * Only items changed at or after this time (ISO-8601 or a `Date`), ordered by `updated_at`: for
   * syncing. Pass the `sync_checkpoint` of the previous walk.
   */
  updated_since: timestampParam('updated_since'),
};
