import { describe, expect, it } from 'vitest';
import {
  expectError,
  expectItem,
  expectResource,
  idsOf,
  ISO_UTC,
  tick,
} from '../../../test/assertions';
import { addOrder, buildEvent, cancelFixtureOrder, staggeredOrders } from '../../../test/fixtures';
import { expectFiltered, expectIds, expectOwnerOnly, itRefusesQueries } from '../../../test/lists';
import { call, createTenant, useTestServer, type TestTenant } from '../../../test/setup';

const TICKET = {
  prefix: 'tkt',
  fields: [
    'id',
    'order_id',
    'event_id',
    'tier_id',
    'attendee_id',
    'code',
    'status',
    'price',
    'currency',
    'checked_in_at',
    'voided_at',
    'livemode',
    'created_at',
    'updated_at',
  ],
  timestamps: ['checked_in_at', 'voided_at', 'created_at', 'updated_at'],
  money: ['price'],
} as const;

const server = useTestServer();
const { get } = server;
const checkIn = (tenant: TestTenant, ticketId: string) =>
  call(server, 'POST', '/api/v1/checkins', { key: tenant.key, body: { ticket_id: ticketId } });

/** Byte order of `created_at` then `id`, the list order of tickets issued by one order. */
const sorted = (ids: string[]) => [...ids].sort();

describe('GET /tickets/{id}', () => {
  it('shows a valid ticket with its barcode', async () => {
    const tenant = await createTenant();
    const { event, tier, order, tickets } = await buildEvent(tenant.organisationId, {
      tickets: 1,
      currency: 'CHF',
    });
    const ticket = expectItem(await get(tenant, `/api/v1/tickets/${tickets[0]!.id}`));
    expectResource(ticket, TICKET);
    expect(ticket).toMatchObject({
      order_id: order.id,
      event_id: event.id,
      tier_id: tier.id,
      attendee_id: tickets[0]!.attendeeId,
      code: tickets[0]!.code,
      status: 'valid',
      price: 2500,
      currency: 'CHF',
      checked_in_at: null,
      voided_at: null,
    });
    expect(ticket.attendee_id).toMatch(/^att_[0-9A-Za-z]{16,}$/);
    expect(ticket.code.length).toBeGreaterThanOrEqual(20);
    expect(ticket.code).not.toContain(ticket.id.slice(4));
    expect(ticket.created_at).toMatch(ISO_UTC);
  });

  it('shows a checked-in ticket, and void tickets of cancelled and refunded orders', async () => {
    const tenant = await createTenant();
    const { tier, order, tickets } = await buildEvent(tenant.organisationId, { tickets: 2 });
    const refunded = await addOrder(tenant.organisationId, tier, { tickets: 1 });
    expectItem(await checkIn(tenant, tickets[0]!.id), 201);
    const inside = expectItem(await get(tenant, `/api/v1/tickets/${tickets[0]!.id}`));
    expect(inside.status).toBe('checked_in');
    expect(inside.checked_in_at).toMatch(ISO_UTC);

    await tick(2);
    await cancelFixtureOrder(tenant.organisationId, order.id);
    await cancelFixtureOrder(tenant.organisationId, refunded.order.id, true);
    for (const { id } of [...tickets, ...refunded.tickets]) {
      const ticket = expectItem(await get(tenant, `/api/v1/tickets/${id}`));
      expect(ticket.status).toBe('void');
      expect(ticket.voided_at).toMatch(ISO_UTC);
      expect(ticket.updated_at).toBe(ticket.voided_at);
      expectError(await checkIn(tenant, id), 409, 'ticket is void');
    }
  });

  it('is a 404 for unknown ids, other kinds and other organisations', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const { order, tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = tickets[0]!;
    await expectOwnerOnly(server, '/api/v1/tickets', {
      owner: tenant,
      other,
      id: ticket.id,
      unknown: [
        'tkt_0000000000000000000000',
        order.id,
        ticket.attendeeId,
        ticket.code,
        `tkt_${order.id.slice(4)}`,
      ],
      message: 'ticket not found',
    });
  });
});

describe('GET /tickets', () => {
  it('lists the organisation’s tickets with the filters of §7', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreign = await buildEvent(other.organisationId, { tickets: 1 });
    const one = await buildEvent(tenant.organisationId, { tickets: 2 });
    const two = await buildEvent(tenant.organisationId, { tickets: 1 });
    const extraTier = expectItem(
      await call(server, 'POST', '/api/v1/tiers', {
        key: tenant.key,
        body: { event_id: one.event.id, name: 'Balcony', price: 1800 },
      }),
      201,
    );
    const balcony = await addOrder(
      tenant.organisationId,
      { id: extraTier.id, eventId: one.event.id },
      { tickets: 1 },
    );
    const cancelled = await addOrder(tenant.organisationId, two.tier, { tickets: 2 });
    await cancelFixtureOrder(tenant.organisationId, cancelled.order.id);
    expectItem(await checkIn(tenant, one.tickets[1]!.id), 201);

    const all = expectIds(
      await get(tenant, '/api/v1/tickets'),
      [
        ...sorted(idsOf(one.tickets)),
        ...idsOf(two.tickets),
        ...idsOf(balcony.tickets),
        ...sorted(idsOf(cancelled.tickets)),
      ],
      { total: 6, page: 1, limit: 20 },
    );
    expectResource(all.data[0], TICKET);

    await expectFiltered(server, tenant, '/api/v1/tickets', [
      [`event_id=${one.event.id}`, [...sorted(idsOf(one.tickets)), balcony.tickets[0]!.id]],
      [`event_id=${foreign.event.id}`, []],
      [`order_id=${two.order.id}`, idsOf(two.tickets)],
      [`order_id=${foreign.order.id}`, []],
      [`tier_id=${extraTier.id}`, idsOf(balcony.tickets)],
      [`tier_id=${two.tier.id}`, [...idsOf(two.tickets), ...sorted(idsOf(cancelled.tickets))]],
      ['status=void', sorted(idsOf(cancelled.tickets))],
      ['status=checked_in', [one.tickets[1]!.id]],
      ['status=valid', [one.tickets[0]!.id, ...idsOf(two.tickets), ...idsOf(balcony.tickets)]],
      ['status=checked_in,void', [one.tickets[1]!.id, ...sorted(idsOf(cancelled.tickets))]],
      [`code=${two.tickets[0]!.code}`, idsOf(two.tickets)],
      [`code=${two.tickets[0]!.code.toLowerCase()}x`, []],
      [`code=${foreign.tickets[0]!.code}`, []],
      [`status=void&tier_id=${one.tier.id}`, []],
    ]);
  });

  it('filters by updated_since, ordered by updated_at then id', async () => {
    const tenant = await createTenant();
    const { first, second, third, since } = await staggeredOrders(
      tenant.organisationId,
      async ({ tickets }) => expectItem(await checkIn(tenant, tickets[0]!.id), 201),
    );
    expectIds(
      await get(tenant, `/api/v1/tickets?updated_since=${since}`),
      [third.tickets[0]!.id, first.tickets[0]!.id],
      { total: 2 },
    );
    expectIds(await get(tenant, '/api/v1/tickets?updated_since=2000-01-01T00:00:00Z'), [
      second.tickets[0]!.id,
      third.tickets[0]!.id,
      first.tickets[0]!.id,
    ]);
  });

  itRefusesQueries(server, '/api/v1/tickets', [
    ['status=bogus', 'status'],
    ['status=valid,used', 'status'],
    ['updated_since=yesterday', 'updated_since'],
    ['code=' + 'c'.repeat(201), 'code'],
    ['order_id=', 'order_id'],
    ['code=%00', 'code'],
    ['tier_id=tier_%00', 'tier_id'],
    ['limit=abc', 'limit'],
  ]);
});
