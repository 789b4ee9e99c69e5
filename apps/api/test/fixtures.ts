import { EXPORT_RESOURCES } from '@boxoffice/contract';
import type { TenantContext } from '../src/core/context';
import type { Event } from '../src/modules/events/event.entity';
import { createEvent } from '../src/modules/events/event.service';
import type { Order } from '../src/modules/orders/order.entity';
import { cancelOrder, placeOrder } from '../src/modules/orders/order.service';
import type { Payout } from '../src/modules/payouts/payout.entity';
import { recordPayout, type PayoutInput } from '../src/modules/payouts/payout.service';
import type { Ticket } from '../src/modules/tickets/ticket.entity';
import { ticketList } from '../src/modules/tickets/ticket.service';
import type { Tier } from '../src/modules/tiers/tier.entity';
import { createTier } from '../src/modules/tiers/tier.service';
import { environmentOf } from '../src/modules/organisations/organisation.service';
import { instantBetweenWrites, tick } from './assertions';
import { getTestOrm } from './setup';

export interface EventFixture {
  event: Event;
  tier: Tier;
  order: Order;
  /** The order's tickets, valid and with their barcode `code`. */
  tickets: Ticket[];
}

let sequence = 0;

/** The services' context for an organisation, live or a test environment, on a fresh fork. */
export async function contextOf(organisationId: string): Promise<TenantContext> {
  const em = (await getTestOrm()).em.fork();
  const { livemode } = await environmentOf(em.fork(), organisationId);
  return { em, organisationId, livemode };
}

/** A valid `POST /events` body: an evening in London on 1 May 2027, priced in GBP. */
export const eventInput = (name: string) => ({
  name,
  timezone: 'Europe/London',
  starts_at: '2027-05-01T18:00:00Z',
  ends_at: '2027-05-01T22:00:00Z',
  currency: 'GBP',
});

/**
 * A published event with one tier and one completed order of `tickets` tickets, built through the
 * services (as the checkout would), for tests that need orders, tickets and attendees.
 */
export async function buildEvent(
  organisationId: string,
  options: { tickets?: number; currency?: string; buyerEmail?: string; name?: string } = {},
): Promise<EventFixture> {
  const ctx = await contextOf(organisationId);
  sequence += 1;
  const event = await createEvent(ctx, {
    name: options.name ?? `Fixture event ${sequence}`,
    timezone: 'Europe/London',
    starts_at: '2027-03-01T19:00:00Z',
    ends_at: '2027-03-01T23:00:00Z',
    currency: options.currency ?? 'GBP',
    status: 'published',
  });
  const tier = await createTier(ctx, {
    event_id: event.id,
    name: 'General admission',
    price: 2500,
    quantity_total: 500,
  });
  const { order, tickets } = await addOrder(organisationId, tier, {
    tickets: options.tickets,
    buyerEmail: options.buyerEmail,
  });
  return { event, tier, order, tickets };
}

/**
 * Another order for a tier of a published event: `completed` (the default) issues its tickets and
 * attendees; `pending` issues none. Returns the order with its tickets, valid and with their `code`.
 */
export async function addOrder(
  organisationId: string,
  tier: Pick<Tier, 'id' | 'eventId'>,
  options: { tickets?: number; buyerEmail?: string; status?: 'pending' | 'completed' } = {},
): Promise<{ order: Order; tickets: Ticket[] }> {
  const ctx = await contextOf(organisationId);
  sequence += 1;
  const count = options.tickets ?? 3;
  const order = await placeOrder(ctx, {
    eventId: tier.eventId,
    buyerName: 'Ada Lovelace',
    buyerEmail: options.buyerEmail ?? `buyer${sequence}@example.com`,
    lines: Array.from({ length: count }, (_, i) => ({
      tierId: tier.id,
      attendee: {
        firstName: `Guest${i}`,
        lastName: 'Fixture',
        email: `guest${i}.${sequence}@example.com`,
        company: null,
        answers: [{ question: 'Dietary requirements', answer: 'None' }],
      },
    })),
    feePerTicket: 150,
    status: options.status ?? 'completed',
    placedAt: new Date(),
  });
  const page = await ticketList.page(
    { ...ctx, em: ctx.em.fork() },
    { order_id: order.id, page: 1, limit: 100, count: false },
  );
  return { order, tickets: page.data };
}

/**
 * Orders staggered in time, for `updated_since` lists: a one-ticket order (`first`, with its event
 * and tier), a second one, the instant returned, a third one after it, and then `touch` called to
 * change the first later still.
 */
export async function staggeredOrders(
  organisationId: string,
  touch: (first: EventFixture) => Promise<unknown>,
) {
  const first = await buildEvent(organisationId, { tickets: 1 });
  const second = await addOrder(organisationId, first.tier, { tickets: 1 });
  const since = await instantBetweenWrites();
  const third = await addOrder(organisationId, first.tier, { tickets: 1 });
  await tick();
  await touch(first);
  return { first, second, third, since };
}

/** Cancels (or refunds) an order, voiding its tickets. */
export async function cancelFixtureOrder(organisationId: string, orderId: string, refund = false) {
  return cancelOrder(await contextOf(organisationId), orderId, { refund, at: new Date() });
}

/** A change record as stored: its position (as text), type, object id and the object. */
export interface ChangeRow {
  position: string;
  type: string;
  object_id: string;
  data: Record<string, unknown>;
}

/** The organisation's change records after `after` (a position), oldest first. */
export async function changesOf(organisationId: string, after = '0'): Promise<ChangeRow[]> {
  const orm = await getTestOrm();
  return orm.em
    .fork()
    .execute<ChangeRow[]>(
      `select position::text, type, object_id, data from change_records where organisation_id = ? and position > ? order by change_records.position`,
      [organisationId, after],
    );
}

/** The position of the organisation's last change record ('0' when it has none). */
export const lastPosition = async (organisationId: string): Promise<string> =>
  (await changesOf(organisationId)).at(-1)?.position ?? '0';

/** A promoter payout as the payment side records it; `amount` is derived (gross − fees − refunds). */
export async function buildPayout(
  organisationId: string,
  options: Partial<PayoutInput> = {},
): Promise<Payout> {
  return recordPayout(await contextOf(organisationId), {
    eventId: null,
    grossAmount: 100_000,
    feesAmount: 4_500,
    refundsAmount: 2_500,
    currency: 'GBP',
    status: 'pending',
    periodStart: new Date('2027-03-01T00:00:00Z'),
    periodEnd: new Date('2027-03-08T00:00:00Z'),
    arrivalDate: null,
    paidAt: null,
    failureReason: null,
    createdAt: new Date(),
    ...options,
  });
}

/**
 * Makes the database refuse every check-in row whose `gate` is `gate` (a trigger raising an error
 * at insert), so a scan fails after the ticket was already changed inside its transaction.
 * Returns a function that lets inserts at that gate through again.
 */
export async function failCheckinInsertsAt(gate: string): Promise<() => Promise<void>> {
  const orm = await getTestOrm();
  await orm.em.fork().transactional(async (em) => {
    // Test files run in parallel against one database: one of them installs the trigger.
    await em.execute('select pg_advisory_xact_lock(724011)');
    await em.execute('create table if not exists test_failing_gates (gate text primary key)');
    await em.execute(`
      create or replace function test_fail_checkin_insert() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from test_failing_gates where gate = new.gate) then
          raise exception 'check-in insert refused for test at gate %', new.gate;
        end if;
        return new;
      end $$`);
    await em.execute(`
      create or replace trigger test_fail_checkin_insert before insert on checkins
        for each row execute function test_fail_checkin_insert()`);
    await em.execute('insert into test_failing_gates (gate) values (?) on conflict do nothing', [
      gate,
    ]);
  });
  return async () => {
    await orm.em.fork().execute('delete from test_failing_gates where gate = ?', [gate]);
  };
}

/** The lists of the API, by path: those an export copies. */
export const LISTS = EXPORT_RESOURCES;

/** The table behind each list (an organisation's data, rows scoped by `organisation_id`). */
export const TABLE_OF_LIST = {
  events: 'events',
  tiers: 'ticket_tiers',
  orders: 'orders',
  tickets: 'tickets',
  attendees: 'attendees',
  checkins: 'checkins',
  payouts: 'payouts',
} as const satisfies Record<(typeof LISTS)[number], string>;
export const DATA_TABLES = LISTS.map((list) => TABLE_OF_LIST[list]);

/**
 * Draft events written straight to the table (named `v0`), `created_at` and `updated_at` as
 * given, to the microsecond; returns their ids in that order.
 */
export async function insertEvents(organisationId: string, stamps: string[]): Promise<string[]> {
  const em = (await getTestOrm()).em.fork();
  const rows = await em.execute<{ id: string }[]>(
    `insert into events (id, organisation_id, name, timezone, starts_at, ends_at, currency,
                         status, created_at, updated_at)
     select 'evt_' || substr(md5(random()::text), 1, 24), ?, 'v0', 'UTC',
            '2027-01-01T18:00:00Z', '2027-01-01T22:00:00Z', 'EUR', 'draft', stamp::timestamptz, stamp::timestamptz
       from json_array_elements_text(?::json) with ordinality as s(stamp, n)
     returning id`,
    [organisationId, JSON.stringify(stamps)],
  );
  return rows.map((row) => row.id);
}
