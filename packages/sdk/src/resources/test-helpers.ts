import type { APIPromise } from '../core/api-promise';
import type { Engine, RequestOptions } from '../internal/engine';
import { APIResource } from './shared';
import type {
  Order,
  Payout,
  TestDataReset,
  TestOrder,
  TestOrderCreateParams,
  TestPayoutAdvanceParams,
} from './types';

/** Test orders: sold and refunded on request, on the test data. */
export class TestOrders extends APIResource<Order> {
  /**
   * Sells a paid test order of `quantity` tickets of one tier, as a buyer at the checkout would
   * (the event published, the tier on sale, enough tickets left). It comes with its tickets, whose
   * `code`s a door can scan at once, and their attendees.
   *
   * @example
   * ```ts
   * const order = await client.testHelpers.orders.create({
   *   event_id: 'evt_…',
   *   tier_id: 'tier_…',
   *   quantity: 2,
   * });
   * console.log(order.tickets.map((ticket) => ticket.code));
   * ```
   */
  create(body: TestOrderCreateParams, options?: RequestOptions): APIPromise<TestOrder> {
    return this.post<TestOrderCreateParams, TestOrder>(body, options);
  }

  /**
   * Refunds a completed test order in full: its tickets become void and their seats go back on
   * sale. An order already refunded, cancelled or not paid is a `ConflictError` (`order_refunded`,
   * `order_cancelled`, `order_not_paid`).
   *
   * @example
   * ```ts
   * const order = await client.testHelpers.orders.refund('ord_…');
   * console.log(order.status); // 'refunded'
   * ```
   */
  refund(id: string, options?: RequestOptions): APIPromise<Order> {
    return this.act(id, 'refund', undefined, options);
  }
}

/** Test payouts: moved on as the bank would, on request. */
export class TestPayouts extends APIResource<Payout> {
  /**
   * Moves a test payout one step on: `pending → in_transit → paid`; with `fail: true`, to
   * `failed` instead. A payout already `paid`, `failed` or `cancelled` is a `ConflictError`
   * (`payout_final`).
   *
   * @example
   * ```ts
   * await client.testHelpers.payouts.advance('po_…'); // in_transit
   * const payout = await client.testHelpers.payouts.advance('po_…', { fail: true });
   * console.log(payout.status, payout.failure_reason); // 'failed' 'The bank returned the payout.'
   * ```
   */
  advance(
    id: string,
    body?: TestPayoutAdvanceParams,
    options?: RequestOptions,
  ): APIPromise<Payout> {
    return this.act(id, 'advance', body, options);
  }
}

/**
 * What the checkout and the bank do, done on request on the organisation's test data, to try an
 * integration end to end. Every call needs a test key (`bxo_test_…`) with the `write` scope: with a
 * live key it throws a `PermissionDeniedError` with `code: 'test_mode_only'`, and changes nothing.
 */
export class TestHelpers extends APIResource<TestDataReset> {
  /** Test orders: `create`, `refund`. */
  readonly orders: TestOrders;
  /** Test payouts: `advance`. */
  readonly payouts: TestPayouts;

  constructor(engine: Engine, path: string) {
    super(engine, path);
    this.orders = new TestOrders(engine, `${path}/orders`);
    this.payouts = new TestPayouts(engine, `${path}/payouts`);
  }

  /**
   * Deletes all the test data (keeping test keys and test webhook endpoints) and makes fresh
   * sample data; resolves to how much of each kind it made.
   *
   * @example
   * ```ts
   * const counts = await client.testHelpers.reset();
   * console.log(counts.events, counts.orders);
   * ```
   */
  reset(options?: RequestOptions): APIPromise<TestDataReset> {
    return this.item('POST', `${this.path}/reset`, {}, options);
  }
}
