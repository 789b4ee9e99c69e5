import type { APIPromise } from '../core/api-promise';
import type { RequestOptions } from '../internal/engine';
import { notItems, Resource } from './shared';
import type {
  Checkin,
  CheckinBatchItemFields,
  CheckinBatchResult,
  CheckinCreateFields,
  CheckinListParams,
} from './types';

/** Names its ticket by exactly one of `ticket_id` and `code`. */
type NamingOneTicket<Fields extends { ticket_id?: string; code?: string }> =
  | (Omit<Fields, 'ticket_id' | 'code'> &
      Required<Pick<Fields, 'ticket_id'>> & {
        /** Not with `ticket_id`: a check-in names its ticket by one of the two. */
        code?: never;
      })
  | (Omit<Fields, 'ticket_id' | 'code'> &
      Required<Pick<Fields, 'code'>> & {
        /** Not with `code`: a check-in names its ticket by one of the two. */
        ticket_id?: never;
      });

/** A check-in names its ticket by exactly one of `ticket_id` and `code`. */
export type CheckinCreateParams = NamingOneTicket<CheckinCreateFields>;

/** One scan of a batch: a check-in's fields, and the scan's own `idempotency_key`. */
export type CheckinBatchItem = NamingOneTicket<CheckinBatchItemFields>;

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

  /**
   * Checks in up to 100 scans in one request (one write against the rate limit), in order, each
   * on its own: the answer has one result per scan, with the status `create` would have had
   * (`201`, or `404`/`409`/`422` with a `code`), and, for `already_checked_in`, the `admission`
   * that got there first. Give each scan an `idempotency_key` so a re-sent batch admits nobody
   * twice; a door that scans offline uses `openDoor` from `@boxoffice/sdk/doors`, which does.
   *
   * @example
   * ```ts
   * const results = await client.checkins.createBatch([
   *   { code: 'K7Q2…', scanned_at: '2026-12-06T19:02:11Z', idempotency_key: 'north-1:1' },
   *   { code: 'M3X9…', scanned_at: '2026-12-06T19:02:14Z', idempotency_key: 'north-1:2' },
   * ]);
   * for (const result of results) if (result.status !== 201) console.log(result.code);
   * ```
   */
  createBatch(
    checkins: readonly CheckinBatchItem[],
    options?: RequestOptions,
  ): APIPromise<CheckinBatchResult[]> {
    return this.item('POST', `${this.path}/batch`, { body: { checkins } }, options, notItems);
  }
}
