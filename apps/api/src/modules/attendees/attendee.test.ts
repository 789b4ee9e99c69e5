import { describe, expect, it } from 'vitest';
import {
  expectError,
  expectItem,
  expectList,
  expectResource,
  tick,
} from '../../../test/assertions';
import { addOrder, buildEvent, cancelFixtureOrder, staggeredOrders } from '../../../test/fixtures';
import { expectFiltered, expectIds, expectOwnerOnly, itRefusesQueries } from '../../../test/lists';
import { call, createTenant, useTestServer, type TestTenant } from '../../../test/setup';
import type { Ticket } from '../tickets/ticket.entity';

const ATTENDEE = {
  prefix: 'att',
  fields: [
    'id',
    'ticket_id',
    'order_id',
    'event_id',
    'first_name',
    'last_name',
    'email',
    'company',
    'answers',
    'checked_in',
    'livemode',
    'created_at',
    'updated_at',
  ],
  timestamps: ['created_at', 'updated_at'],
} as const;

const server = useTestServer();
const { get } = server;
const scan = (tenant: TestTenant, ticketId: string, direction: 'entry' | 'exit' = 'entry') =>
  call(server, 'POST', '/api/v1/checkins', {
    key: tenant.key,
    body: { ticket_id: ticketId, direction },
  });

/** The attendees of these tickets in list order (`created_at`, then id). */
const attendeesOf = (tickets: Ticket[]) => tickets.map((ticket) => ticket.attendeeId).sort();

describe('GET /attendees/{id}', () => {
  it('shows the attendee of a ticket', async () => {
    const tenant = await createTenant();
    const { event, order, tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = tickets[0]!;
    const attendee = expectItem(await get(tenant, `/api/v1/attendees/${ticket.attendeeId}`));
    expectResource(attendee, ATTENDEE);
    expect(attendee).toMatchObject({
      id: ticket.attendeeId,
      ticket_id: ticket.id,
      order_id: order.id,
      event_id: event.id,
      first_name: 'Guest0',
      last_name: 'Fixture',
      company: null,
      answers: [{ question: 'Dietary requirements', answer: 'None' }],
      checked_in: false,
    });
    expect(attendee.email).toMatch(/^guest0\.\d+@example\.com$/);
  });

  it('follows its ticket in and out', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = tickets[0]!;
    const path = `/api/v1/attendees/${ticket.attendeeId}`;
    const before = expectItem(await get(tenant, path));
    await tick(2);
    expectItem(await scan(tenant, ticket.id), 201);
    const inside = expectItem(await get(tenant, path));
    expect(inside.checked_in).toBe(true);
    expect(Date.parse(inside.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
    expectItem(await scan(tenant, ticket.id, 'exit'), 201);
    expect(expectItem(await get(tenant, path)).checked_in).toBe(false);
  });

  it('is a 404 for unknown ids, other kinds and other organisations', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const { order, tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = tickets[0]!;
    await expectOwnerOnly(server, '/api/v1/attendees', {
      owner: tenant,
      other,
      id: ticket.attendeeId,
      unknown: ['att_0000000000000000000000', ticket.id, order.id, `att_${ticket.id.slice(4)}`],
      message: 'attendee not found',
    });
  });
});

describe('GET /attendees', () => {
  it('lists the organisation’s attendees with the filters of §7', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const foreign = await buildEvent(other.organisationId, { tickets: 1 });
    const one = await buildEvent(tenant.organisationId, { tickets: 2 });
    const two = await buildEvent(tenant.organisationId, { tickets: 1 });
    const more = await addOrder(tenant.organisationId, two.tier, { tickets: 2 });
    expectItem(await scan(tenant, one.tickets[0]!.id), 201);
    expectItem(await scan(tenant, more.tickets[1]!.id), 201);
    const inside = [one.tickets[0]!.attendeeId, more.tickets[1]!.attendeeId];

    const everyone = [
      ...attendeesOf(one.tickets),
      ...attendeesOf(two.tickets),
      ...attendeesOf(more.tickets),
    ];
    const all = expectIds(await get(tenant, '/api/v1/attendees'), everyone, {
      total: 5,
      page: 1,
      limit: 20,
    });
    expectResource(all.data[0], ATTENDEE);
    const email = all.data.find((a: { id: string }) => a.id === two.tickets[0]!.attendeeId).email;

    await expectFiltered(server, tenant, '/api/v1/attendees', [
      [`event_id=${one.event.id}`, attendeesOf(one.tickets)],
      [`event_id=${two.event.id}`, [...attendeesOf(two.tickets), ...attendeesOf(more.tickets)]],
      [`event_id=${foreign.event.id}`, []],
      [`order_id=${more.order.id}`, attendeesOf(more.tickets)],
      [`order_id=${foreign.order.id}`, []],
      [`ticket_id=${one.tickets[1]!.id}`, [one.tickets[1]!.attendeeId]],
      [`ticket_id=${foreign.tickets[0]!.id}`, []],
      [`email=${email}`, [two.tickets[0]!.attendeeId]],
      [`email=${email.toUpperCase()}`, [two.tickets[0]!.attendeeId]],
      [`email=${email.slice(0, -4)}`, []],
      [`email=${foreign.tickets[0]!.attendeeId}`, []],
      ['checked_in=true', everyone.filter((id) => inside.includes(id))],
      ['checked_in=false', everyone.filter((id) => !inside.includes(id))],
      [`checked_in=true&event_id=${two.event.id}`, [more.tickets[1]!.attendeeId]],
    ]);
  });

  it('matches email ignoring case but not as a pattern', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const list = expectList(await get(tenant, '/api/v1/attendees'), { total: 1 });
    const email: string = list.data[0].email;
    expectList(await get(tenant, `/api/v1/attendees?email=${email.toUpperCase()}`), { total: 1 });
    const wildcard = email.replace(/^guest0/, 'guest_').replace('@', '%25@');
    expectList(await get(tenant, `/api/v1/attendees?email=${wildcard}`), { total: 0 });
    expect(tickets[0]!.attendeeId).toBe(list.data[0].id);
  });

  it('keeps the attendees of void tickets, not checked in', async () => {
    const tenant = await createTenant();
    const { order, tickets } = await buildEvent(tenant.organisationId, { tickets: 2 });
    await cancelFixtureOrder(tenant.organisationId, order.id);
    expectIds(await get(tenant, `/api/v1/attendees?order_id=${order.id}`), attendeesOf(tickets), {
      total: 2,
    });
    expectList(await get(tenant, '/api/v1/attendees?checked_in=true'), { total: 0 });
  });

  it('filters by updated_since, ordered by updated_at then id', async () => {
    const tenant = await createTenant();
    const { first, second, third, since } = await staggeredOrders(
      tenant.organisationId,
      async ({ tickets }) => expectItem(await scan(tenant, tickets[0]!.id), 201),
    );
    expectIds(
      await get(tenant, `/api/v1/attendees?updated_since=${since}`),
      [third.tickets[0]!.attendeeId, first.tickets[0]!.attendeeId],
      { total: 2 },
    );
    expectIds(await get(tenant, '/api/v1/attendees?updated_since=2000-01-01T00:00:00Z'), [
      second.tickets[0]!.attendeeId,
      third.tickets[0]!.attendeeId,
      first.tickets[0]!.attendeeId,
    ]);
  });

  itRefusesQueries(server, '/api/v1/attendees', [
    ['checked_in=maybe', 'checked_in'],
    ['checked_in=1', 'checked_in'],
    ['checked_in=', 'checked_in'],
    ['updated_since=yesterday', 'updated_since'],
    ['email=' + 'x'.repeat(321), 'email'],
    ['ticket_id=', 'ticket_id'],
    ['email=%00', 'email'],
    ['page=0', 'page'],
  ]);

  it('paginates with the defaults and refuses bad limits', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 23 });
    const ids = attendeesOf(tickets);
    expectIds(await get(tenant, '/api/v1/attendees'), ids.slice(0, 20), {
      total: 23,
      page: 1,
      limit: 20,
    });
    expectIds(await get(tenant, '/api/v1/attendees?page=2'), ids.slice(20), { total: 23 });
    const third = expectList(await get(tenant, '/api/v1/attendees?page=3'), { total: 23 });
    expect(third.data).toEqual([]);
    expectIds(await get(tenant, '/api/v1/attendees?limit=100'), ids, { limit: 100 });
    for (const limit of ['0', '101', 'abc', '1.5']) {
      expectError(
        await get(tenant, `/api/v1/attendees?limit=${limit}`),
        400,
        'limit must be an integer between 1 and 100',
      );
    }
  });
});
