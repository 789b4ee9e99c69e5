import type { Event } from '../src/modules/events/event.entity';
import { createEvent } from '../src/modules/events/event.service';
import type { Order } from '../src/modules/orders/order.entity';
import { cancelOrder, placeOrder } from '../src/modules/orders/order.service';
import type { Ticket } from '../src/modules/tickets/ticket.entity';
import { listTickets } from '../src/modules/tickets/ticket.service';
import type { Tier } from '../src/modules/tiers/tier.entity';
import { createTier } from '../src/modules/tiers/tier.service';
import { getTestOrm } from './setup';

export interface EventFixture {
  event: Event;
  tier: Tier;
  order: Order;
  /** The order's tickets, valid and with their barcode `code`. */
  tickets: Ticket[];
}

let sequence = 0;

/**
 * A published event with one tier and one completed order of `tickets` tickets, built through the
 * services (as the checkout would), for tests that need orders, tickets and attendees.
 */
export async function buildEvent(
  organisationId: string,
  options: { tickets?: number; currency?: string; buyerEmail?: string; name?: string } = {},
): Promise<EventFixture> {
  const orm = await getTestOrm();
  const ctx = { em: orm.em.fork(), organisationId };
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
  const count = options.tickets ?? 3;
  const order = await placeOrder(ctx, {
    eventId: event.id,
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
    status: 'completed',
    placedAt: new Date(),
  });
  const page = await listTickets(
    { em: orm.em.fork(), organisationId },
    { order_id: order.id, page: 1, limit: 100 },
  );
  return { event, tier, order, tickets: page.data };
}

/** Cancels (or refunds) an order, voiding its tickets. */
export async function cancelFixtureOrder(organisationId: string, orderId: string, refund = false) {
  const orm = await getTestOrm();
  return cancelOrder({ em: orm.em.fork(), organisationId }, orderId, { refund, at: new Date() });
}
