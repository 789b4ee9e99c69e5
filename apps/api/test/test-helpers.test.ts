import { beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint } from '../src/modules/webhooks/webhook-endpoint.service';
import { expectError, expectItem, expectList, expectSampleCounts } from './assertions';
import {
  buildEvent,
  buildPayout,
  changesOf,
  contextOf,
  eventInput,
  lastPosition,
  type EventFixture,
} from './fixtures';
import {
  call,
  createKey,
  createTenant,
  createTestKey,
  startTestServer,
  useTestServer,
  type TestTenant,
} from './setup';
import { useReceiverAndEngine } from './webhooks/harness';

/**
 * The test helpers over real HTTP: a live organisation and its test environment, each with a
 * published event of its own; the test key sells, refunds, pays out and resets, the live key is
 * refused every time.
 */

const server = useTestServer();

interface Mode {
  tenant: TestTenant;
  fixture: EventFixture;
}

let live: Mode;
let test: Mode;

beforeAll(async () => {
  const liveTenant = await createTenant();
  const testTenant = await createTestKey(liveTenant.organisationId);
  live = { tenant: liveTenant, fixture: await buildEvent(liveTenant.organisationId) };
  test = { tenant: testTenant, fixture: await buildEvent(testTenant.organisationId) };
}, 60_000);

const post = (tenant: Pick<TestTenant, 'key'>, path: string, body?: unknown, key?: string) =>
  call(server, 'POST', `/api/v1/test_helpers${path}`, {
    key: tenant.key,
    body,
    headers: key ? { 'idempotency-key': key } : {},
  });

const orderBody = (mode: Mode, quantity = 2) => ({
  event_id: mode.fixture.event.id,
  tier_id: mode.fixture.tier.id,
  quantity,
});

/** The tier of a mode's fixture as its own key reads it. */
const tierOf = async (mode: Mode) =>
  expectItem(await server.get(mode.tenant, `/api/v1/tiers/${mode.fixture.tier.id}`));

/** The mode's change records after `position`, as `type object_id`. */
const changesAfter = async (mode: Mode, position: string) =>
  (await changesOf(mode.tenant.organisationId, position)).map((c) => `${c.type} ${c.object_id}`);

const TEST_MODE_ONLY =
  'This endpoint works in test mode only: call it with a test key (bxo_test_…); a live key (bxo_live_…) never changes data through it.';

describe('POST /test_helpers/orders', () => {
  it('sells a paid order of the tier, answering it with its tickets and attendees, in test mode', async () => {
    const before = await tierOf(test);
    const position = await lastPosition(test.tenant.organisationId);
    const order = expectItem(
      await post(test.tenant, '/orders', {
        ...orderBody(test, 3),
        buyer_name: 'Ada Lovelace',
        buyer_email: 'ada@example.com',
      }),
      201,
    );
    expect(order).toMatchObject({
      event_id: test.fixture.event.id,
      buyer_name: 'Ada Lovelace',
      buyer_email: 'ada@example.com',
      status: 'completed',
      ticket_count: 3,
      subtotal: 3 * 2500,
      livemode: false,
    });
    expect(order.paid_at).toBe(order.placed_at);
    const { tickets, attendees, ...plain } = order;
    // The order itself is the order as GET /orders/{id} renders it.
    expect(expectItem(await server.get(test.tenant, `/api/v1/orders/${order.id}`))).toEqual(plain);
    expect(tickets).toHaveLength(3);
    expect(attendees).toHaveLength(3);
    for (const [i, ticket] of tickets.entries()) {
      expect(ticket).toMatchObject({
        order_id: order.id,
        tier_id: test.fixture.tier.id,
        status: 'valid',
        livemode: false,
      });
      expect(ticket.code).toMatch(/^[0-9A-Za-z]{24}$/);
      expect(attendees[i]).toMatchObject({
        id: ticket.attendee_id,
        ticket_id: ticket.id,
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada@example.com',
        livemode: false,
      });
    }

    // Stock moved, and the sale is recorded as a real one: order, tickets, attendees, tier.
    const after = await tierOf(test);
    expect(after.quantity_sold).toBe(before.quantity_sold + 3);
    expect(after.quantity_available).toBe(before.quantity_available - 3);
    expect((await changesAfter(test, position)).sort()).toEqual(
      [
        `order.created ${order.id}`,
        ...tickets.map((t: { id: string }) => `ticket.created ${t.id}`),
        ...attendees.map((a: { id: string }) => `attendee.created ${a.id}`),
        `tier.updated ${test.fixture.tier.id}`,
      ].sort(),
    );

    // The door checks a ticket in by its code, with the same test key.
    const checkin = expectItem(
      await call(server, 'POST', '/api/v1/checkins', {
        key: test.tenant.key,
        body: { code: tickets[0].code, event_id: test.fixture.event.id },
      }),
      201,
    );
    expect(checkin).toMatchObject({ ticket_id: tickets[0].id, livemode: false });
  });

  it('has a test buyer unless told another', async () => {
    const order = expectItem(await post(test.tenant, '/orders', orderBody(test, 1)), 201);
    expect(order).toMatchObject({
      buyer_name: 'Test Buyer',
      buyer_email: 'test.buyer@example.com',
    });
    expect(order.attendees[0]).toMatchObject({ first_name: 'Test', last_name: 'Buyer' });
  });

  it('answers a repeated request with the same Idempotency-Key from the first, selling once', async () => {
    const sold = (await tierOf(test)).quantity_sold;
    const first = await post(test.tenant, '/orders', orderBody(test, 2), 'sell-once');
    const again = await post(test.tenant, '/orders', orderBody(test, 2), 'sell-once');
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await tierOf(test)).quantity_sold).toBe(sold + 2);
    const other = await post(test.tenant, '/orders', orderBody(test, 1), 'sell-once');
    expectError(other, 422, /Idempotency-Key has already been used/);
  });

  it('refuses what a buyer could not buy, changing nothing', async () => {
    const other = await buildEvent(test.tenant.organisationId, { tickets: 1 });
    const sold = (await tierOf(test)).quantity_sold;
    const position = await lastPosition(test.tenant.organisationId);
    const cases: [string, unknown, number, string][] = [
      ['no tickets', orderBody(test, 0), 400, 'invalid_quantity'],
      ['too many tickets', orderBody(test, 21), 400, 'invalid_quantity'],
      ['part of a ticket', orderBody(test, 1.5), 400, 'validation_failed'],
      ['an unknown field', { ...orderBody(test), price: 0 }, 400, 'validation_failed'],
      [
        'an unknown tier',
        { ...orderBody(test), tier_id: 'tier_0000000000000000' },
        422,
        'unknown_tier',
      ],
      [
        'an unknown event',
        { ...orderBody(test), event_id: 'evt_0000000000000000' },
        422,
        'unknown_event',
      ],
      [
        'a tier of another event',
        { ...orderBody(test), tier_id: other.tier.id },
        422,
        'wrong_event',
      ],
      // The live organisation's tier is not this environment's: as unknown as any other.
      ['a live tier', { ...orderBody(test), tier_id: live.fixture.tier.id }, 422, 'unknown_tier'],
    ];
    for (const [what, body, status, code] of cases) {
      const refused = await post(test.tenant, '/orders', body);
      expect(refused.status, what).toBe(status);
      expect(refused.body.code, what).toBe(code);
    }
    expect((await post(test.tenant, '/orders', orderBody(test, 0))).body.error).toBe(
      'quantity must be an integer between 1 and 20',
    );
    expect((await tierOf(test)).quantity_sold).toBe(sold);
    expect(await changesAfter(test, position)).toEqual([]);
  });

  it('follows the tier’s sales rules: paused, sold out, max_per_order', async () => {
    const fixture = await buildEvent(test.tenant.organisationId, { tickets: 1 });
    const mode = { tenant: test.tenant, fixture };
    const tierPath = `/api/v1/tiers/${fixture.tier.id}`;
    expectItem(await server.patch(test.tenant, tierPath, { max_per_order: 2 }));
    expect((await post(test.tenant, '/orders', orderBody(mode, 3))).body.code).toBe(
      'max_per_order_exceeded',
    );
    expectItem(
      await server.patch(test.tenant, tierPath, { quantity_total: 2, max_per_order: null }),
    );
    expect((await post(test.tenant, '/orders', orderBody(mode, 2))).body).toMatchObject({
      code: 'sold_out',
      error: 'only 1 ticket is left in this tier',
    });
    expectItem(await server.patch(test.tenant, tierPath, { status: 'paused' }));
    expect((await post(test.tenant, '/orders', orderBody(mode, 1))).body.code).toBe(
      'tier_not_on_sale',
    );
    const draft = expectItem(
      await server.post(test.tenant, '/api/v1/events', eventInput('Draft')),
      201,
    );
    const draftTier = expectItem(
      await server.post(test.tenant, '/api/v1/tiers', { event_id: draft.id, name: 'GA', price: 0 }),
      201,
    );
    const unpublished = await post(test.tenant, '/orders', {
      event_id: draft.id,
      tier_id: draftTier.id,
      quantity: 1,
    });
    expect(unpublished.status).toBe(409);
    expect(unpublished.body.code).toBe('event_not_on_sale');
  });
});

describe('POST /test_helpers/orders/{id}/refund', () => {
  it('refunds a paid order: its tickets void, its seats back on sale; a second refund is a 409', async () => {
    const order = expectItem(await post(test.tenant, '/orders', orderBody(test, 2)), 201);
    const inside = await call(server, 'POST', '/api/v1/checkins', {
      key: test.tenant.key,
      body: { ticket_id: order.tickets[0].id },
    });
    expect(inside.status).toBe(201);
    const sold = (await tierOf(test)).quantity_sold;
    const position = await lastPosition(test.tenant.organisationId);

    const refunded = expectItem(await post(test.tenant, `/orders/${order.id}/refund`));
    expect(refunded).toMatchObject({
      id: order.id,
      status: 'refunded',
      refunded_amount: order.total,
      livemode: false,
    });
    expect(refunded.cancelled_at).toBe(refunded.updated_at);
    expect(expectItem(await server.get(test.tenant, `/api/v1/orders/${order.id}`))).toEqual(
      refunded,
    );
    const tickets = expectList(
      await server.get(test.tenant, `/api/v1/tickets?order_id=${order.id}`),
    ).data;
    expect(tickets.map((t) => t.status)).toEqual(['void', 'void']);
    expect((await tierOf(test)).quantity_sold).toBe(sold - 2);
    expect((await changesAfter(test, position)).sort()).toEqual(
      [
        `order.updated ${order.id}`,
        ...order.tickets.map((t: { id: string }) => `ticket.updated ${t.id}`),
        `attendee.updated ${order.tickets[0].attendee_id}`,
        `tier.updated ${test.fixture.tier.id}`,
      ].sort(),
    );
    const scan = await call(server, 'POST', '/api/v1/checkins', {
      key: test.tenant.key,
      body: { code: order.tickets[1].code },
    });
    expectError(scan, 409, 'ticket is void');

    const twice = await post(test.tenant, `/orders/${order.id}/refund`);
    expectError(twice, 409, 'the order is already refunded');
    expect(twice.body.code).toBe('order_refunded');
  });

  it('is a 404 for an order it cannot see: unknown, or live', async () => {
    for (const id of ['ord_0000000000000000', live.fixture.order.id]) {
      expectError(await post(test.tenant, `/orders/${id}/refund`), 404, 'order not found');
    }
  });

  it('replays the first answer for the same Idempotency-Key instead of a 409', async () => {
    const order = expectItem(await post(test.tenant, '/orders', orderBody(test, 1)), 201);
    const first = await post(test.tenant, `/orders/${order.id}/refund`, undefined, 'refund-once');
    const again = await post(test.tenant, `/orders/${order.id}/refund`, undefined, 'refund-once');
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('POST /test_helpers/payouts/{id}/advance', () => {
  it('moves a payout pending → in_transit → paid, and then refuses: it is final', async () => {
    const payout = await buildPayout(test.tenant.organisationId);
    const position = await lastPosition(test.tenant.organisationId);
    const moving = expectItem(await post(test.tenant, `/payouts/${payout.id}/advance`));
    expect(moving).toMatchObject({ id: payout.id, status: 'in_transit', livemode: false });
    expect(moving.arrival_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const paid = expectItem(await post(test.tenant, `/payouts/${payout.id}/advance`, {}));
    expect(paid).toMatchObject({ status: 'paid', failure_reason: null });
    expect(paid.paid_at).toBe(paid.updated_at);
    expect(expectItem(await server.get(test.tenant, `/api/v1/payouts/${payout.id}`))).toEqual(paid);
    expect(await changesAfter(test, position)).toEqual([
      `payout.updated ${payout.id}`,
      `payout.updated ${payout.id}`,
    ]);
    const final = await post(test.tenant, `/payouts/${payout.id}/advance`);
    expectError(final, 409, 'the payout is already paid; it cannot change');
    expect(final.body.code).toBe('payout_final');
  });

  it('fails a payout with fail: true, by way of in_transit', async () => {
    const payout = await buildPayout(test.tenant.organisationId);
    const position = await lastPosition(test.tenant.organisationId);
    const failed = expectItem(
      await post(test.tenant, `/payouts/${payout.id}/advance`, { fail: true }),
    );
    expect(failed).toMatchObject({
      status: 'failed',
      failure_reason: 'The bank returned the payout.',
      paid_at: null,
      livemode: false,
    });
    const records = await changesOf(test.tenant.organisationId, position);
    expect(records.map((r) => r.data.status)).toEqual(['in_transit', 'failed']);
    expect(
      (await post(test.tenant, `/payouts/${payout.id}/advance`, { fail: true })).body.code,
    ).toBe('payout_final');
  });

  it('refuses a bad body and an unknown payout, changing nothing', async () => {
    const payout = await buildPayout(test.tenant.organisationId);
    const refused = await post(test.tenant, `/payouts/${payout.id}/advance`, { fail: 'yes' });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('validation_failed');
    expectError(
      await post(test.tenant, '/payouts/po_0000000000000000/advance'),
      404,
      'payout not found',
    );
    const livePayout = await buildPayout(live.tenant.organisationId);
    expectError(
      await post(test.tenant, `/payouts/${livePayout.id}/advance`),
      404,
      'payout not found',
    );
    expect(expectItem(await server.get(test.tenant, `/api/v1/payouts/${payout.id}`)).status).toBe(
      'pending',
    );
  });
});

describe('POST /test_helpers/reset', () => {
  it('deletes the test data and brings fresh sample data; live data stays; a replay resets nothing', async () => {
    const liveTenant = await createTenant();
    const testKey = await createTestKey(liveTenant.organisationId);
    const liveEvent = expectItem(
      await server.post(liveTenant, '/api/v1/events', eventInput('Live')),
      201,
    );
    const made = expectItem(await server.post(testKey, '/api/v1/events', eventInput('Made')), 201);

    const reset = await post(testKey, '/reset', undefined, 'reset-once');
    const counts = expectItem(reset);
    expectSampleCounts(counts, 3);
    expect(counts.orders).toBeGreaterThan(0);
    expectError(await server.get(testKey, `/api/v1/events/${made.id}`), 404, 'event not found');
    expect(expectList(await server.get(testKey, '/api/v1/events')).total).toBe(3);
    expect(expectList(await server.get(testKey, '/api/v1/orders')).total).toBe(counts.orders);
    expectItem(await server.get(liveTenant, `/api/v1/events/${liveEvent.id}`));

    const after = expectItem(
      await server.post(testKey, '/api/v1/events', eventInput('After')),
      201,
    );
    const replay = await post(testKey, '/reset', undefined, 'reset-once');
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(reset.body);
    expectItem(await server.get(testKey, `/api/v1/events/${after.id}`));
  });
});

describe('with a live key', () => {
  it('every helper is a 403 test_mode_only, checked after the plan and the scope, and nothing changes', async () => {
    const sold = (await tierOf(live)).quantity_sold;
    const payout = await buildPayout(live.tenant.organisationId);
    const position = await lastPosition(live.tenant.organisationId);
    const attempts: [string, unknown][] = [
      ['/orders', orderBody(live)],
      [`/orders/${live.fixture.order.id}/refund`, undefined],
      [`/payouts/${payout.id}/advance`, { fail: true }],
      ['/reset', undefined],
    ];
    for (const [path, body] of attempts) {
      const refused = await post(live.tenant, path, body);
      expectError(refused, 403, TEST_MODE_ONLY);
      expect(refused.body.code, path).toBe('test_mode_only');
      // Refused before the rate limit: the window is reported, not counted.
      expect(refused.headers.get('x-ratelimit-limit')).not.toBeNull();
    }
    expect((await tierOf(live)).quantity_sold).toBe(sold);
    expect(
      expectItem(await server.get(live.tenant, `/api/v1/orders/${live.fixture.order.id}`)).status,
    ).toBe('completed');
    expect(expectItem(await server.get(live.tenant, `/api/v1/payouts/${payout.id}`)).status).toBe(
      'pending',
    );
    expect(await changesAfter(live, position)).toEqual([]);

    // The scope comes first: a live key without `write` is told of the scope.
    const reader = await createKey(live.tenant.organisationId, ['read']);
    const unscoped = await post(reader, '/reset');
    expectError(unscoped, 403, "This API key lacks the 'write' scope");
    // And the plan before it.
    const free = await createTenant(['read', 'write'], 'free');
    expect((await post(free, '/reset')).body.code).toBe('plan_required');
  });
});

describe('rate limits', () => {
  it('count the helpers as writes', async () => {
    const limited = await startTestServer({ readsPerMinute: 100, writesPerMinute: 2 });
    try {
      const tenant = await createTestKey((await createTenant()).organisationId);
      const send = () =>
        call(limited, 'POST', '/api/v1/test_helpers/orders', {
          key: tenant.key,
          body: { event_id: 'evt_0000000000000000', tier_id: 'tier_0000000000000000', quantity: 1 },
        });
      const first = await send();
      expect(first.status).toBe(422);
      expect(first.headers.get('x-ratelimit-limit')).toBe('2');
      expect((await send()).status).toBe(422);
      expect((await send()).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('webhooks', () => {
  const { receiver } = useReceiverAndEngine();

  it('a test endpoint hears of a test order and its refund, with livemode false', async () => {
    const tenant = await createTestKey((await createTenant()).organisationId);
    const fixture = await buildEvent(tenant.organisationId, { tickets: 1 });
    await createEndpoint(
      await contextOf(tenant.organisationId),
      { url: receiver.url('test-helpers'), events: ['order.created', 'order.updated'] },
      { allowHttp: true, allowPrivate: true },
    );
    const order = expectItem(
      await post(tenant, '/orders', {
        event_id: fixture.event.id,
        tier_id: fixture.tier.id,
        quantity: 1,
      }),
      201,
    );
    expectItem(await post(tenant, `/orders/${order.id}/refund`));
    const deliveries = await receiver.receivedAtLeast('test-helpers', 2, 20_000);
    const payloads = deliveries.map(
      (delivery) =>
        JSON.parse(delivery.body) as {
          type: string;
          livemode: boolean;
          data: { object: { id: string; status: string; livemode: boolean } };
        },
    );
    expect(
      payloads.map((p) => [p.type, p.livemode, p.data.object.id, p.data.object.status]),
    ).toEqual([
      ['order.created', false, order.id, 'completed'],
      ['order.updated', false, order.id, 'refunded'],
    ]);
  });
});
