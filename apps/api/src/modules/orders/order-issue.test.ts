import { describe, expect, it } from 'vitest';
import { changesOf, lastPosition, contextOf } from '../../../test/fixtures';
import { createTenant, getTestOrm } from '../../../test/setup';
import type { TenantContext } from '../../core/context';
import { poolOf } from '../../db/driver';
import { getAttendee, toAttendeeResource } from '../attendees/attendee.service';
import { recordCheckin } from '../checkins/checkin.service';
import { createEvent, updateEvent } from '../events/event.service';
import { getTicket, toTicketResource } from '../tickets/ticket.service';
import { createTier, getTier, toTierResource, updateTier } from '../tiers/tier.service';
import {
  bookingFee,
  cancelOrder,
  getOrder,
  issueOrder,
  MAX_TICKETS_PER_ORDER,
  placeOrder,
  refundOrder,
  toOrderResource,
  type IssueOrderInput,
} from './order.service';

const DAY = 24 * 3600 * 1000;
const inDays = (days: number) => new Date(Date.now() + days * DAY);

interface SaleOptions {
  quantityTotal?: number | null;
  maxPerOrder?: number | null;
  price?: number;
  salesStartAt?: Date;
  salesEndAt?: Date;
}

/** A fresh organisation with a published event a month away and one tier on sale. */
async function onSale(options: SaleOptions = {}) {
  const tenant = await createTenant();
  const ctx = await contextOf(tenant.organisationId);
  const startsAt = inDays(30);
  const event = await createEvent(ctx, {
    name: 'Harbour Lights Festival',
    timezone: 'Europe/Dublin',
    starts_at: startsAt.toISOString(),
    ends_at: new Date(startsAt.getTime() + 6 * 3600 * 1000).toISOString(),
    currency: 'EUR',
    status: 'published',
  });
  const tier = await createTier(ctx, {
    event_id: event.id,
    name: 'Standing',
    price: options.price ?? 3500,
    quantity_total: options.quantityTotal === undefined ? 10 : options.quantityTotal,
    max_per_order: options.maxPerOrder ?? null,
    sales_start_at: options.salesStartAt?.toISOString() ?? null,
    sales_end_at: options.salesEndAt?.toISOString() ?? null,
  });
  return { tenant, organisationId: tenant.organisationId, event, tier };
}

/** What a refusal must leave as it was: the organisation's rows and its tiers' counts. */
async function snapshot(organisationId: string) {
  const orm = await getTestOrm();
  const [counts] = await orm.em.fork().execute<Record<string, string | number>[]>(
    `select (select count(*)::int from orders where organisation_id = ?) as orders,
            (select count(*)::int from tickets where organisation_id = ?) as tickets,
            (select count(*)::int from attendees where organisation_id = ?) as attendees,
            (select count(*)::int from change_records where organisation_id = ?) as changes,
            (select json_agg(json_build_array(id, quantity_sold, status, updated_at) order by id)
               from ticket_tiers where organisation_id = ?)::text as tiers,
            (select json_agg(json_build_array(id, status, updated_at) order by id)
               from orders where organisation_id = ?)::text as order_states,
            (select json_agg(json_build_array(id, status, updated_at) order by id)
               from tickets where organisation_id = ?)::text as ticket_states`,
    Array.from({ length: 7 }, () => organisationId),
  );
  return counts;
}

/** `issueOrder` refuses `input` with this status and code, and the organisation's data is unchanged. */
async function expectIssueRefused(
  organisationId: string,
  input: IssueOrderInput,
  refusal: { status: number; code: string },
  what?: string,
) {
  const before = await snapshot(organisationId);
  await expect(issueOrder(await contextOf(organisationId), input), what).rejects.toMatchObject(
    refusal,
  );
  expect(await snapshot(organisationId)).toEqual(before);
}

describe('issueOrder', () => {
  it('issues a paid order: tickets with scannable codes, attendees, stock, change records', async () => {
    const { tenant, organisationId, event, tier } = await onSale({ quantityTotal: 5 });
    const before = await lastPosition(organisationId);

    const issued = await issueOrder(await contextOf(organisationId), {
      eventId: event.id,
      tierId: tier.id,
      quantity: 3,
      buyerName: '  Grace  Brewster Hopper ',
      buyerEmail: 'grace@example.com',
    });

    const { order, tickets, attendees } = issued;
    expect(order).toMatchObject({
      eventId: event.id,
      status: 'completed',
      buyerName: 'Grace  Brewster Hopper',
      buyerEmail: 'grace@example.com',
      subtotal: 3 * 3500,
      fees: 3 * bookingFee(3500),
      total: 3 * (3500 + bookingFee(3500)),
      refundedAmount: 0,
      currency: 'EUR',
      ticketCount: 3,
      cancelledAt: null,
    });
    expect(order.paidAt).toEqual(order.placedAt);
    expect(tickets).toHaveLength(3);
    expect(attendees).toHaveLength(3);
    for (const [i, ticket] of tickets.entries()) {
      expect(ticket).toMatchObject({ orderId: order.id, tierId: tier.id, status: 'valid' });
      expect(ticket.code).toMatch(/^[0-9A-Za-z]{24}$/);
      expect(attendees[i]).toMatchObject({
        id: ticket.attendeeId,
        ticketId: ticket.id,
        firstName: 'Grace',
        lastName: 'Brewster Hopper',
        email: 'grace@example.com',
        checkedIn: false,
      });
    }
    expect(new Set(tickets.map((t) => t.code)).size).toBe(3);

    const stocked = await getTier(await contextOf(organisationId), tier.id);
    expect(stocked).toMatchObject({ quantitySold: 3, status: 'on_sale' });

    // The change records, in order, hold each object as it is now stored.
    const changes = await changesOf(organisationId, before);
    expect(changes.map((c) => [c.type, c.object_id])).toEqual([
      ['order.created', order.id],
      ...tickets.flatMap((t) => [
        ['ticket.created', t.id],
        ['attendee.created', t.attendeeId],
      ]),
      ['tier.updated', tier.id],
    ]);
    const ctx = await contextOf(organisationId);
    const stored = [
      toOrderResource(await getOrder(ctx, order.id), true),
      ...(
        await Promise.all(
          tickets.map(async (t) => [
            toTicketResource(await getTicket(ctx, t.id), true),
            toAttendeeResource(await getAttendee(ctx, t.attendeeId), true),
          ]),
        )
      ).flat(),
      toTierResource(stocked, true),
    ];
    expect(changes.map((c) => c.data)).toEqual(stored);

    // A door scans a ticket by its code.
    const first = tickets[0]!;
    const checkin = await recordCheckin(
      { ...(await contextOf(organisationId)), apiKeyId: tenant.apiKeyId },
      { code: first.code, event_id: event.id },
    );
    expect(checkin).toMatchObject({ ticketId: first.id, attendeeId: first.attendeeId });
    const scanned = await getTicket(await contextOf(organisationId), first.id);
    expect(scanned.status).toBe('checked_in');
  });

  it('takes attendees, a fee and a moment; sells the last tickets and shows the tier sold out', async () => {
    const { organisationId, event, tier } = await onSale({ quantityTotal: 2, price: 0 });
    const at = new Date(Date.now() - 3 * DAY);
    const { order, attendees } = await issueOrder(await contextOf(organisationId), {
      eventId: event.id,
      tierId: tier.id,
      quantity: 2,
      attendees: [
        { firstName: 'Ada', lastName: 'Lovelace', email: null, company: 'Analytical', answers: [] },
        {
          firstName: 'Charles',
          lastName: 'Babbage',
          email: 'cb@example.com',
          company: null,
          answers: [{ question: 'Dietary requirements', answer: 'None' }],
        },
      ],
      feePerTicket: 0,
      at,
    });
    expect(order).toMatchObject({
      buyerName: 'Test Buyer',
      buyerEmail: 'test.buyer@example.com',
      total: 0,
      placedAt: at,
      paidAt: at,
      createdAt: at,
    });
    expect(attendees.map((a) => [a.firstName, a.company, a.createdAt])).toEqual([
      ['Ada', 'Analytical', at],
      ['Charles', null, at],
    ]);
    const soldOut = await getTier(await contextOf(organisationId), tier.id);
    expect(soldOut).toMatchObject({ quantitySold: 2, status: 'sold_out' });
  });

  it('refuses what a buyer could not buy, with a clear code, and changes nothing', async () => {
    const sale = await onSale({ quantityTotal: 4, maxPerOrder: 3 });
    const { organisationId, event, tier } = sale;
    const other = await onSale();
    await issueOrder(await contextOf(organisationId), {
      eventId: event.id,
      tierId: tier.id,
      quantity: 2,
    });
    const base: IssueOrderInput = { eventId: event.id, tierId: tier.id, quantity: 1 };
    const refusals: [string, Partial<IssueOrderInput>, number, string][] = [
      ['no tickets', { quantity: 0 }, 400, 'invalid_quantity'],
      ['too many', { quantity: MAX_TICKETS_PER_ORDER + 1 }, 400, 'invalid_quantity'],
      ['a fraction', { quantity: 1.5 }, 400, 'invalid_quantity'],
      ['attendees of another count', { quantity: 2, attendees: [] }, 400, 'invalid_request'],
      ['an unknown event', { eventId: 'evt_0000000000000000000000' }, 422, 'unknown_event'],
      ['an unknown tier', { tierId: 'tier_0000000000000000000000' }, 422, 'unknown_tier'],
      ["another organisation's tier", { tierId: other.tier.id }, 422, 'unknown_tier'],
      ["another organisation's event", { eventId: other.event.id }, 422, 'unknown_event'],
      ['above max_per_order (3)', { quantity: 4 }, 422, 'max_per_order_exceeded'],
      ['more than are left (2)', { quantity: 3 }, 409, 'sold_out'],
      ['after the event started', { at: inDays(31) }, 409, 'tier_not_on_sale'],
    ];

    const before = await snapshot(organisationId);
    for (const [what, change, status, code] of refusals) {
      await expect(
        issueOrder(await contextOf(organisationId), { ...base, ...change }),
        what,
      ).rejects.toMatchObject({ status, code });
    }
    expect(await snapshot(organisationId)).toEqual(before);

    // A tier of another event of the organisation.
    const second = await createEvent(await contextOf(organisationId), {
      name: 'Second night',
      timezone: 'Europe/Dublin',
      starts_at: inDays(40).toISOString(),
      ends_at: inDays(41).toISOString(),
      currency: 'EUR',
      status: 'published',
    });
    await expectIssueRefused(
      organisationId,
      { ...base, eventId: second.id },
      { status: 422, code: 'wrong_event' },
    );
  });

  it('refuses a tier off sale: paused, before its window, after it', async () => {
    const nothing = () => Promise.resolve();
    const cases: [string, SaleOptions, (tierId: string, ctx: TenantContext) => Promise<unknown>][] =
      [
        ['paused', {}, (id, ctx) => updateTier(ctx, id, { status: 'paused' })],
        ['not open yet', { salesStartAt: inDays(2) }, nothing],
        ['closed', { salesStartAt: inDays(-5), salesEndAt: inDays(-1) }, nothing],
      ];
    for (const [what, options, prepare] of cases) {
      const { organisationId, event, tier } = await onSale(options);
      await prepare(tier.id, await contextOf(organisationId));
      await expectIssueRefused(
        organisationId,
        { eventId: event.id, tierId: tier.id, quantity: 1 },
        { status: 409, code: 'tier_not_on_sale' },
        what,
      );
    }
    // A hidden tier sells (to those given its link).
    const hidden = await onSale();
    await updateTier(await contextOf(hidden.organisationId), hidden.tier.id, {
      status: 'hidden',
    });
    const { order } = await issueOrder(await contextOf(hidden.organisationId), {
      eventId: hidden.event.id,
      tierId: hidden.tier.id,
      quantity: 1,
    });
    expect(order.status).toBe('completed');
  });

  it('refuses an event that is not on sale: draft, cancelled, completed', async () => {
    for (const status of ['draft', 'cancelled', 'completed'] as const) {
      const { organisationId, event, tier } = await onSale();
      const ctx = await contextOf(organisationId);
      if (status === 'draft') {
        // A draft event with a tier: created as a draft.
        const draft = await createEvent(ctx, {
          name: 'Draft night',
          timezone: 'Europe/Dublin',
          starts_at: inDays(20).toISOString(),
          ends_at: inDays(21).toISOString(),
          currency: 'EUR',
        });
        const draftTier = await createTier(await contextOf(organisationId), {
          event_id: draft.id,
          name: 'Seated',
          price: 1000,
        });
        await expectIssueRefused(
          organisationId,
          { eventId: draft.id, tierId: draftTier.id, quantity: 1 },
          { status: 409, code: 'event_not_on_sale' },
          status,
        );
        continue;
      }
      await updateEvent(ctx, event.id, { status });
      await expectIssueRefused(
        organisationId,
        { eventId: event.id, tierId: tier.id, quantity: 1 },
        { status: 409, code: 'event_not_on_sale' },
        status,
      );
    }
  });

  it('sells the last ticket once when two orders race for it', async () => {
    const { organisationId, event, tier } = await onSale({ quantityTotal: 1 });
    const orm = await getTestOrm();
    // Hold the tier so that both orders are in their transactions, waiting, when it is released.
    const pool = await poolOf(orm.em);
    const blocker = await pool.connect();
    try {
      await blocker.query('begin');
      await blocker.query('select id from ticket_tiers where id = $1 for update', [tier.id]);
      const racing = [1, 2].map(async () =>
        issueOrder(await contextOf(organisationId), {
          eventId: event.id,
          tierId: tier.id,
          quantity: 1,
        }),
      );
      // Both wait, one on the lock itself and the other behind it.
      const { rows } = await blocker.query<{ pid: number }>('select pg_backend_pid() as pid');
      await expect
        .poll(
          async () => {
            const waiting = await blocker.query<{ n: number }>(
              `with recursive waiting(pid) as (
                 select pid from pg_stat_activity where $1::int = any(pg_blocking_pids(pid))
                 union
                 select a.pid from pg_stat_activity a
                   join waiting w on w.pid = any(pg_blocking_pids(a.pid))
               )
               select count(*)::int as n from waiting`,
              [rows[0]?.pid],
            );
            return waiting.rows[0]?.n;
          },
          { timeout: 10_000 },
        )
        .toBe(2);
      await blocker.query('commit');
      const results = await Promise.allSettled(racing);
      const sold = results.filter((r) => r.status === 'fulfilled');
      const refused = results.filter((r) => r.status === 'rejected');
      expect(sold).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({
        status: 409,
        code: 'sold_out',
      });
    } finally {
      await blocker.query('rollback').catch(() => undefined);
      blocker.release();
    }
    const counts = await snapshot(organisationId);
    expect(counts).toMatchObject({ orders: 1, tickets: 1, attendees: 1 });
    expect(await getTier(await contextOf(organisationId), tier.id)).toMatchObject({
      quantitySold: 1,
      status: 'sold_out',
    });
  });
});

describe('refundOrder', () => {
  it('refunds a paid order: tickets void (a checked-in one too), seats back, records', async () => {
    const { tenant, organisationId, event, tier } = await onSale({ quantityTotal: 2 });
    const { order, tickets } = await issueOrder(await contextOf(organisationId), {
      eventId: event.id,
      tierId: tier.id,
      quantity: 2,
      buyerName: 'Katherine Johnson',
    });
    const inside = tickets[0]!;
    await recordCheckin(
      { ...(await contextOf(organisationId)), apiKeyId: tenant.apiKeyId },
      { ticket_id: inside.id },
    );
    const before = await lastPosition(organisationId);

    const refunded = await refundOrder(await contextOf(organisationId), order.id);

    expect(refunded.order).toMatchObject({
      status: 'refunded',
      refundedAmount: order.total,
    });
    expect(refunded.order.cancelledAt).toEqual(refunded.order.updatedAt);
    const ctx = await contextOf(organisationId);
    const stored = await Promise.all(tickets.map((t) => getTicket(ctx, t.id)));
    for (const ticket of stored) {
      expect(ticket).toMatchObject({ status: 'void', checkedInAt: null });
      expect(ticket.voidedAt).toEqual(refunded.order.cancelledAt);
    }
    const attendee = await getAttendee(ctx, inside.attendeeId);
    expect(attendee.checkedIn).toBe(false);
    const tierAfter = await getTier(ctx, tier.id);
    expect(tierAfter).toMatchObject({ quantitySold: 0, status: 'on_sale' });

    const changes = await changesOf(organisationId, before);
    expect(changes.map((c) => [c.type, c.object_id])).toEqual([
      ['order.updated', order.id],
      ...[...tickets].sort((a, b) => (a.id < b.id ? -1 : 1)).map((t) => ['ticket.updated', t.id]),
      ['attendee.updated', inside.attendeeId],
      ['tier.updated', tier.id],
    ]);
    expect(changes.at(0)?.data).toEqual(toOrderResource(await getOrder(ctx, order.id), true));
    expect(changes.at(-2)?.data).toEqual(toAttendeeResource(attendee, true));
    expect(changes.at(-1)?.data).toEqual(toTierResource(tierAfter, true));

    // A void ticket admits nobody.
    await expect(
      recordCheckin(
        { ...(await contextOf(organisationId)), apiKeyId: tenant.apiKeyId },
        { code: inside.code },
      ),
    ).rejects.toMatchObject({ status: 409, code: 'ticket_void' });

    // Refunding again is refused and changes nothing.
    const snap = await snapshot(organisationId);
    await expect(refundOrder(await contextOf(organisationId), order.id)).rejects.toMatchObject({
      status: 409,
      code: 'order_refunded',
    });
    expect(await snapshot(organisationId)).toEqual(snap);
  });

  it('refuses cancelled, pending and unknown orders, and those of another organisation', async () => {
    const { organisationId, event, tier } = await onSale();
    const ctx = () => contextOf(organisationId);
    const pending = await placeOrder(await ctx(), {
      eventId: event.id,
      buyerName: 'Pending Payer',
      buyerEmail: 'pending@example.com',
      lines: [
        {
          tierId: tier.id,
          attendee: { firstName: 'P', lastName: 'P', email: null, company: null, answers: [] },
        },
      ],
      feePerTicket: 100,
      status: 'pending',
      placedAt: new Date(),
    });
    const { order: toCancel } = await issueOrder(await ctx(), {
      eventId: event.id,
      tierId: tier.id,
      quantity: 1,
    });
    await cancelOrder(await ctx(), toCancel.id, { refund: false, at: new Date() });
    const other = await onSale();
    const { order: foreign } = await issueOrder(await contextOf(other.organisationId), {
      eventId: other.event.id,
      tierId: other.tier.id,
      quantity: 1,
    });

    const before = await snapshot(organisationId);
    const foreignBefore = await snapshot(other.organisationId);
    const refusals: [string, number, string][] = [
      [pending.id, 409, 'order_not_paid'],
      [toCancel.id, 409, 'order_cancelled'],
      ['ord_0000000000000000000000', 404, 'not_found'],
      ['tkt_0000000000000000000000', 404, 'not_found'],
      [foreign.id, 404, 'not_found'],
    ];
    for (const [id, status, code] of refusals) {
      await expect(refundOrder(await ctx(), id), id).rejects.toMatchObject({ status, code });
    }
    expect(await snapshot(organisationId)).toEqual(before);
    expect(await snapshot(other.organisationId)).toEqual(foreignBefore);
  });
});
