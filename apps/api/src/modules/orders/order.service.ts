import { LockMode } from '@mikro-orm/postgresql';
import type { AttendeeAnswer, Order as OrderResource, OrderStatus } from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { conflict, notFound, unprocessable } from '../../core/errors';
import { newId, newOrderReference } from '../../core/ids';
import { deleteAllOwned, getOwned } from '../../db/owned';
import { inTransaction } from '../../db/driver';
import { iso, isoOrNull } from '../../core/iso-time';
import { likeEscape } from '../../db/pages';
import { listWhere } from '../../db/list-where';
import { findPage, type Page, type PageRequest } from '../../db/pages';
import { registerAttendee, toAttendeeResource } from '../attendees/attendee.service';
import { recordChanges, type Change } from '../changes/change.service';
import { getEvent } from '../events/event.service';
import { issueTicket, toTicketResource, voidTicketsOfOrder } from '../tickets/ticket.service';
import type { Tier } from '../tiers/tier.entity';
import { adjustSold, getTier, toTierResource } from '../tiers/tier.service';
import { Order } from './order.entity';

/** The order as the API renders it; `livemode` says whether it is live data or test data. */
export const toOrderResource = (order: Order, livemode: boolean): OrderResource => ({
  id: order.id,
  reference: order.reference,
  event_id: order.eventId,
  buyer_name: order.buyerName,
  buyer_email: order.buyerEmail,
  status: order.status,
  subtotal: order.subtotal,
  fees: order.fees,
  total: order.total,
  refunded_amount: order.refundedAmount,
  currency: order.currency,
  ticket_count: order.ticketCount,
  placed_at: iso(order.placedAt),
  paid_at: isoOrNull(order.paidAt),
  cancelled_at: isoOrNull(order.cancelledAt),
  livemode,
  created_at: iso(order.createdAt),
  updated_at: iso(order.updatedAt),
});

export interface OrderFilters extends PageRequest {
  event_id?: string;
  status?: OrderStatus[];
  email?: string;
  reference?: string;
  updated_since?: Date;
}

export async function listOrders(ctx: TenantContext, query: OrderFilters): Promise<Page<Order>> {
  const where = listWhere<Order>(ctx, query);
  if (query.email) where.buyerEmail = { $ilike: likeEscape(query.email) };
  if (query.reference) where.reference = query.reference;
  return findPage(ctx.em, Order, where, query);
}

export const getOrder = (ctx: TenantContext, id: string): Promise<Order> =>
  getOwned(ctx, Order, 'order', 'order', id);

export interface OrderLine {
  tierId: string;
  attendee: {
    firstName: string;
    lastName: string;
    email: string | null;
    company: string | null;
    answers: AttendeeAnswer[];
  };
}

export interface PlaceOrderInput {
  eventId: string;
  buyerName: string;
  buyerEmail: string;
  /** One line per ticket. */
  lines: OrderLine[];
  /** Booking fee per ticket, in minor units. */
  feePerTicket: number;
  /** `completed` issues tickets at once; `pending` waits for payment and issues none. */
  status: 'pending' | 'completed';
  placedAt: Date;
}

/**
 * Places an order in one transaction. A completed order counts its sales on each tier (refusing to
 * oversell) and issues a ticket and an attendee per line. Orders come from the checkout, not the
 * public API.
 */
export async function placeOrder(ctx: TenantContext, input: PlaceOrderInput): Promise<Order> {
  return inTransaction(ctx, async (tx) => {
    const event = await getEvent(tx, input.eventId);
    if (event.status !== 'published') {
      throw conflict(`orders can only be placed for published events, not ${event.status} ones`);
    }
    const orderId = newId('order', input.placedAt);
    const paidAt = input.status === 'completed' ? input.placedAt : null;
    let subtotal = 0;
    const tiers = new Map<string, Tier>();
    const issued: Change[] = [];
    for (const line of input.lines) {
      // Seats are counted as sold once paid; a pending order holds none.
      const tier =
        input.status === 'completed'
          ? await adjustSold(tx, line.tierId, 1)
          : await getTier(tx, line.tierId);
      if (tier.eventId !== event.id) throw unprocessable('tier belongs to another event');
      if (input.status === 'completed') tiers.set(tier.id, tier);
      subtotal += tier.price;
      if (input.status !== 'completed') continue;
      const ticketId = newId('ticket', input.placedAt);
      const attendeeId = newId('attendee', input.placedAt);
      const ticket = issueTicket(
        tx,
        {
          orderId,
          eventId: event.id,
          tierId: tier.id,
          attendeeId,
          price: tier.price,
          currency: tier.currency,
          issuedAt: input.placedAt,
        },
        ticketId,
      );
      const attendee = registerAttendee(
        tx,
        { ...line.attendee, ticketId, orderId, eventId: event.id, registeredAt: input.placedAt },
        attendeeId,
      );
      issued.push(
        { type: 'ticket.created', object: toTicketResource(ticket, tx.livemode) },
        { type: 'attendee.created', object: toAttendeeResource(attendee, tx.livemode) },
      );
    }
    const fees = input.feePerTicket * input.lines.length;
    const order = tx.em.create(Order, {
      id: orderId,
      organisationId: ctx.organisationId,
      eventId: event.id,
      reference: newOrderReference(),
      buyerName: input.buyerName,
      buyerEmail: input.buyerEmail,
      status: input.status,
      subtotal,
      fees,
      total: subtotal + fees,
      refundedAmount: 0,
      currency: event.currency,
      ticketCount: input.lines.length,
      placedAt: input.placedAt,
      paidAt,
      cancelledAt: null,
      // An order, its tickets and attendees exist from when it was placed (history too).
      createdAt: input.placedAt,
    });
    // The flush stamps the tiers' `updatedAt`; the change records render them as stored.
    await tx.em.flush();
    await recordChanges(tx, [
      { type: 'order.created', object: toOrderResource(order, tx.livemode) },
      ...issued,
      ...[...tiers.values()].map((tier) => ({
        type: 'tier.updated' as const,
        object: toTierResource(tier, tx.livemode),
      })),
    ]);
    return order;
  });
}

/** Cancels (or refunds) an order: its tickets become void and its seats go back on sale. */
export async function cancelOrder(
  ctx: TenantContext,
  orderId: string,
  options: { refund: boolean; at: Date },
): Promise<Order> {
  return inTransaction(ctx, async (tx) => {
    const order = await tx.em.findOne(
      Order,
      { id: orderId, organisationId: ctx.organisationId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!order) throw notFound('order');
    if (order.status === 'cancelled' || order.status === 'refunded') return order;
    const tickets = await voidTicketsOfOrder(tx, order.id, options.at);
    const perTier = new Map<string, number>();
    for (const ticket of tickets) perTier.set(ticket.tierId, (perTier.get(ticket.tierId) ?? 0) + 1);
    const tiers: Tier[] = [];
    for (const [tierId, count] of perTier) tiers.push(await adjustSold(tx, tierId, -count));
    order.status = options.refund ? 'refunded' : 'cancelled';
    order.refundedAmount = options.refund ? order.total : 0;
    order.cancelledAt = options.at;
    // Changed when it was cancelled, also when that is recorded later (history); see base.entity.ts.
    order.updatedAt = options.at;
    // The flush stamps the tiers' `updatedAt`; the change records render them as stored.
    await tx.em.flush();
    await recordChanges(tx, [
      { type: 'order.updated', object: toOrderResource(order, tx.livemode) },
      ...tickets.map((ticket) => ({
        type: 'ticket.updated' as const,
        object: toTicketResource(ticket, tx.livemode),
      })),
      ...tiers.map((tier) => ({
        type: 'tier.updated' as const,
        object: toTierResource(tier, tx.livemode),
      })),
    ]);
    return order;
  });
}

/** Deletes all the organisation's orders (a test environment's reset); how many. */
export const deleteAllOrders = (ctx: TenantContext): Promise<number> => deleteAllOwned(ctx, Order);
