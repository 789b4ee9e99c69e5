import { describe, expect, it } from 'vitest';
import {
  expectBadRequest,
  expectError,
  expectItem,
  expectList,
  expectResource,
  ISO_UTC,
  tick,
} from '../../../test/assertions';
import { addOrder, buildEvent, cancelFixtureOrder, staggeredOrders } from '../../../test/fixtures';
import {
  expectFiltered,
  expectIds,
  expectOwnerOnly,
  expectStablePagesWhileAppending,
  itRefusesQueries,
} from '../../../test/lists';
import { call, createTenant, useTestServer, type TestTenant } from '../../../test/setup';

const ORDER = {
  prefix: 'ord',
  fields: [
    'id',
    'reference',
    'event_id',
    'buyer_name',
    'buyer_email',
    'status',
    'subtotal',
    'fees',
    'total',
    'refunded_amount',
    'currency',
    'ticket_count',
    'placed_at',
    'paid_at',
    'cancelled_at',
    'livemode',
    'created_at',
    'updated_at',
  ],
  timestamps: ['placed_at', 'paid_at', 'cancelled_at', 'created_at', 'updated_at'],
  money: ['subtotal', 'fees', 'total', 'refunded_amount'],
} as const;

const server = useTestServer();
const { get } = server;

describe('GET /orders/{id}', () => {
  it('shows a completed order with integer money', async () => {
    const tenant = await createTenant();
    const { event, order } = await buildEvent(tenant.organisationId, {
      tickets: 3,
      currency: 'EUR',
      buyerEmail: 'Ada@Example.com',
    });
    const data = expectItem(await get(tenant, `/api/v1/orders/${order.id}`));
    expectResource(data, ORDER);
    expect(data).toMatchObject({
      id: order.id,
      reference: order.reference,
      event_id: event.id,
      buyer_name: 'Ada Lovelace',
      buyer_email: 'Ada@Example.com',
      status: 'completed',
      subtotal: 7500,
      fees: 450,
      total: 7950,
      refunded_amount: 0,
      currency: 'EUR',
      ticket_count: 3,
      cancelled_at: null,
    });
    expect(data.reference).toMatch(/^[A-Z0-9-]{4,20}$/);
    expect(data.paid_at).toMatch(ISO_UTC);
    expect(data.placed_at).toBe(data.created_at);
  });

  it('shows pending, cancelled and refunded orders', async () => {
    const tenant = await createTenant();
    const { tier, order } = await buildEvent(tenant.organisationId, { tickets: 2 });
    const pending = await addOrder(tenant.organisationId, tier, { tickets: 1, status: 'pending' });
    const refundable = await addOrder(tenant.organisationId, tier, { tickets: 1 });
    await tick(2);
    await cancelFixtureOrder(tenant.organisationId, order.id);
    await cancelFixtureOrder(tenant.organisationId, refundable.order.id, true);

    const open = expectItem(await get(tenant, `/api/v1/orders/${pending.order.id}`));
    expect(open).toMatchObject({
      status: 'pending',
      paid_at: null,
      cancelled_at: null,
      ticket_count: 1,
      total: 2650,
    });
    expect(pending.tickets).toEqual([]);

    const cancelled = expectItem(await get(tenant, `/api/v1/orders/${order.id}`));
    expect(cancelled).toMatchObject({ status: 'cancelled', refunded_amount: 0, total: 5300 });
    expect(cancelled.cancelled_at).toMatch(ISO_UTC);
    expect(cancelled.updated_at).toBe(cancelled.cancelled_at);
    expect(Date.parse(cancelled.updated_at)).toBeGreaterThan(Date.parse(cancelled.created_at));

    const refunded = expectItem(await get(tenant, `/api/v1/orders/${refundable.order.id}`));
    expect(refunded).toMatchObject({ status: 'refunded', total: 2650, refunded_amount: 2650 });
    expect(refunded.cancelled_at).toMatch(ISO_UTC);

    // Their tickets are void.
    for (const orderId of [order.id, refundable.order.id]) {
      const tickets = expectList(await get(tenant, `/api/v1/tickets?order_id=${orderId}`));
      expect(tickets.total).toBeGreaterThan(0);
      for (const ticket of tickets.data) {
        expect(ticket.status).toBe('void');
        expect(ticket.voided_at).toMatch(ISO_UTC);
      }
    }
  });

  it('is a 404 for unknown ids, other kinds and other organisations', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const { event, order, tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    await expectOwnerOnly(server, '/api/v1/orders', {
      owner: tenant,
      other,
      id: order.id,
      unknown: ['ord_0000000000000000000000', event.id, tickets[0]!.id, order.reference],
      message: 'order not found',
    });
  });

  it('cannot be written through the API', async () => {
    const tenant = await createTenant();
    const { order } = await buildEvent(tenant.organisationId, { tickets: 1 });
    for (const [method, path] of [
      ['POST', '/api/v1/orders'],
      ['PATCH', `/api/v1/orders/${order.id}`],
    ] as const) {
      const result = await call(server, method, path, {
        key: tenant.key,
        body: { status: 'cancelled' },
      });
      expectError(result, 405, `method not allowed: ${method} ${path} (allowed: GET)`);
      expect(result.headers.get('allow')).toBe('GET');
    }
    expect(expectItem(await get(tenant, `/api/v1/orders/${order.id}`)).status).toBe('completed');
  });
});

describe('GET /orders', () => {
  async function seed(tenant: TestTenant) {
    const first = await buildEvent(tenant.organisationId, {
      tickets: 1,
      buyerEmail: 'grace_hopper@example.com',
    });
    const second = await buildEvent(tenant.organisationId, {
      tickets: 2,
      buyerEmail: 'Alan.Turing@Example.org',
    });
    const pending = await addOrder(tenant.organisationId, first.tier, {
      tickets: 1,
      status: 'pending',
      buyerEmail: 'gracexhopper@example.com',
    });
    const refunded = await addOrder(tenant.organisationId, second.tier, {
      tickets: 1,
      buyerEmail: 'alan.turing@example.org',
    });
    await cancelFixtureOrder(tenant.organisationId, refunded.order.id, true);
    const cancelled = await addOrder(tenant.organisationId, first.tier, { tickets: 1 });
    await cancelFixtureOrder(tenant.organisationId, cancelled.order.id);
    return {
      events: { first: first.event, second: second.event },
      orders: {
        a: first.order,
        b: second.order,
        pending: pending.order,
        refunded: refunded.order,
        cancelled: cancelled.order,
      },
    };
  }

  it('lists the organisation’s orders in creation order', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    await buildEvent(other.organisationId, { buyerEmail: 'grace_hopper@example.com' });
    const { orders } = await seed(tenant);
    const list = expectIds(
      await get(tenant, '/api/v1/orders'),
      [orders.a.id, orders.b.id, orders.pending.id, orders.refunded.id, orders.cancelled.id],
      { total: 5, page: 1, limit: 20 },
    );
    expectResource(list.data[0], ORDER);
    expectList(await get(tenant, '/api/v1/orders?email=grace_hopper@example.com'), { total: 1 });
  });

  it('filters by event_id, status, email and reference', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreign = await buildEvent(other.organisationId);
    const { events, orders } = await seed(tenant);
    const cases: [string, (keyof typeof orders)[]][] = [
      [`event_id=${events.first.id}`, ['a', 'pending', 'cancelled']],
      [`event_id=${events.second.id}`, ['b', 'refunded']],
      [`event_id=${foreign.event.id}`, []],
      ['status=completed', ['a', 'b']],
      ['status=pending', ['pending']],
      ['status=cancelled,refunded', ['refunded', 'cancelled']],
      ['status=refunded&status=pending', ['pending', 'refunded']],
      [`status=completed&event_id=${events.second.id}`, ['b']],
      ['email=alan.turing@example.org', ['b', 'refunded']],
      ['email=ALAN.TURING@EXAMPLE.ORG', ['b', 'refunded']],
      ['email=grace_hopper@example.com', ['a']],
      ['email=GRACEXHOPPER@example.com', ['pending']],
      ['email=alan.turing', []],
      ['email=%25@example.org', []],
      [`reference=${orders.pending.reference}`, ['pending']],
      [`reference=${orders.a.reference.toLowerCase()}`, []],
      [`reference=${foreign.order.reference}`, []],
    ];
    await expectFiltered(
      server,
      tenant,
      '/api/v1/orders',
      cases.map(([query, names]) => [query, names.map((name) => orders[name].id)]),
    );
  });

  it('filters by updated_since, ordered by updated_at then id', async () => {
    const tenant = await createTenant();
    const { first, second, third, since } = await staggeredOrders(
      tenant.organisationId,
      ({ order }) => cancelFixtureOrder(tenant.organisationId, order.id),
    );
    expectIds(
      await get(tenant, `/api/v1/orders?updated_since=${since}`),
      [third.order.id, first.order.id],
      { total: 2 },
    );
    expectIds(await get(tenant, '/api/v1/orders?updated_since=2001-01-01T00:00:00Z'), [
      second.order.id,
      third.order.id,
      first.order.id,
    ]);
    expectIds(await get(tenant, '/api/v1/orders'), [
      first.order.id,
      second.order.id,
      third.order.id,
    ]);
  });

  itRefusesQueries(server, '/api/v1/orders', [
    ['status=bogus', 'status'],
    ['status=completed,paid', 'status'],
    ['updated_since=yesterday', 'updated_since'],
    ['updated_since=2027-02-30T00:00:00Z', 'updated_since'],
    ['email=' + 'x'.repeat(321), 'email'],
    ['reference=', 'reference'],
    ['email=a%00@example.com', 'email'],
    ['reference=BX-%00', 'reference'],
    ['updated_since=0000-01-01T00:00:00Z', 'updated_since'],
    ['event_id=' + 'e'.repeat(81), 'event_id'],
  ]);

  it('paginates in a stable order while orders are appended', async () => {
    const tenant = await createTenant();
    const { tier } = await buildEvent(tenant.organisationId, { tickets: 1 });
    for (let i = 0; i < 4; i++) await addOrder(tenant.organisationId, tier, { tickets: 1 });
    await expectStablePagesWhileAppending(server, tenant, '/api/v1/orders', {
      initial: 5,
      appends: 3,
      append: () => addOrder(tenant.organisationId, tier, { tickets: 1 }),
    });

    const past = expectList(await get(tenant, '/api/v1/orders?page=3&limit=4'), { total: 8 });
    expect(past.data).toEqual([]);
    expectError(
      await get(tenant, '/api/v1/orders?limit=101'),
      400,
      'limit must be an integer between 1 and 100',
    );
    expectError(
      await get(tenant, '/api/v1/orders?limit=1.5'),
      400,
      'limit must be an integer between 1 and 100',
    );
    expectBadRequest(await get(tenant, '/api/v1/orders?page=-1'), 'page');
  });
});
