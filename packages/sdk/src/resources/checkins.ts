import type { APIPromise } from '../core/api-promise';
import type { RequestOptions } from '../internal/engine';
import { Resource } from './shared';
import type { Checkin, CheckinCreateFields, CheckinListParams } from './types';

type Scan = Omit<CheckinCreateFields, 'ticket_id' | 'code'>;

/** A check-in names its ticket by exactly one of `ticket_id` and `code`. */
export type CheckinCreateParams =
  | (Scan &
      Required<Pick<CheckinCreateFields, 'ticket_id'>> & {
        /** Not with `ticket_id`: a check-in names its ticket by one of the two. */
        code?: never;
      })
  | (Scan &
      Required<Pick<CheckinCreateFields, 'code'>> & {
        /** Not with `code`: a check-in names its ticket by one of the two. */
        ticket_id?: never;
      });

/** Check-ins, listed by server receipt time; `since` filters on it. */
export class Checkins extends Resource<Checkin, CheckinListParams> {
  /**
   * Checks a ticket in (or out, with `direction: 'exit'`). The call's idempotency key is reused
   * across its retries, so a retried scan never admits twice. A ticket already admitted is a
   * `ConflictError` with `code: 'already_checked_in'`.
   *
   * @example
   * ```ts
   * const checkin = await client.checkins.create({ code: scannedCode, gate: 'North' });
   * ```
   */
  create(body: CheckinCreateParams, options?: RequestOptions): APIPromise<Checkin> {
    return this.post(body, options);
  }
}
