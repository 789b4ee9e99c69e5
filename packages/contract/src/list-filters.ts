import { enumListParam, textParam, timestampParam } from './common';

// Filters several lists share, spread into their query schemas. Not exported from the package:
// each list's schema is its public shape.

/** `event_id`: only the items of one event. */
export const byEvent = { event_id: textParam('event_id', 80) };

/** `status`: one or more of the resource's statuses. */
export const byStatus = <T extends string>(statuses: readonly [T, ...T[]]) => ({
  status: enumListParam('status', statuses),
});

/** `updated_since`: a sync's filter, which also orders the list by `updated_at`. */
export const sinceUpdated = { updated_since: timestampParam('updated_since') };
