import type { AttendeeAnswer, Order as OrderResource } from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { badRequest, conflict, unprocessable } from '../../core/errors';
import { newId, newOrderReference } from '../../core/ids';
import { deleteAllOwned, getOwned } from '../../db/owned';
import { clock, inTransaction } from '../../db/driver';
import { iso, isoOrNull } from '../../core/iso-time';
import { stampsOf } from '../../core/stamps';
import { likeEscape } from '../../db/pages';
import { resourceList, type ListFilters } from '../../db/resource-list';
import type { Attendee } from '../attendees/attendee.entity';
import {
  markAttendeesOut,
  registerAttendee,
  toAttendeeResource,
} from '../attendees/attendee.service';
import { recordChanges, type Change } from '../changes/change.service';
import type { Event } from '../events/event.entity';
import { checkEventOnSale, findEvent } from '../events/event.service';
import type { Ticket } from '../tickets/ticket.entity';
import { issueTicket, toTicketResource, voidTicketsOfOrder } from '../tickets/ticket.service';
import type { Tier } from '../tiers/tier.entity';
import {
  adjustSold,
  checkOnSale,
  countSold,
  findTier,
  toTierResource,
} from '../tiers/tier.service';
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
  ...stampsOf(order, livemode),
});

/** The order list: `email` (any case) and `reference` besides the shared filters. */
export const orderList = resourceList<Order, ListFilters<'orders'>>(Order, (where, query) => {
  if (query.email) where.buyerEmail = { $ilike: likeEscape(query.email) };
  if (query.reference) where.reference = query.reference;
});

export const getOrder = (ctx: TenantContext, id: string): Promise<Order> =>
  getOwned(ctx, Order, 'order', 'order', id);

/** Who holds a ticket, as the checkout asks. */
export interface AttendeeDetails {
  firstName: string;
  lastName: string;
  email: string | null;
  company: string | null;
  answers: AttendeeAnswer[];
}

export interface OrderLine {
  tierId: string;
  attendee: AttendeeDetails;
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

/** An order as it was written, with the tickets and attendees it issued (none while pending). */
export interface IssuedOrder {
  order: Order;
  tickets: Ticket[];
  attendees: Attendee[];
}

/** The booking fee added per ticket at checkout, in minor units: free tickets carry none. */
export const bookingFee = (price: number): number =>
  price > 0 ? Math.round(price * 0.025) + 79 : 0;

/** The most tickets one `issueOrder` call issues (a tier's `max_per_order` may lower it). */
export const MAX_TICKETS_PER_ORDER = 20;

/**
 * The event of a sale and its tiers, locked in one order everywhere (the event shared, so it cannot
 * be cancelled meanwhile while sales of its other tiers go on; then each tier, by id), so that
 * sales of the same tiers queue instead of deadlocking. 422 for an unknown event or tier, or a tier
 * of another event; 409 `event_not_on_sale` unless the event is published.
 */
async function openSale(
  tx: TenantContext,
  eventId: string,
  tierIds: readonly string[],
): Promise<{ event: Event; tiers: Map<string, Tier> }> {
  const event = await findEvent(tx, eventId, { lock: 'share' });
  if (!event) throw unprocessable(`event ${eventId} does not exist`, 'unknown_event');
  checkEventOnSale(event);
  const tiers = new Map<string, Tier>();
  for (const tierId of [...new Set(tierIds)].sort()) {
    const tier = await findTier(tx, tierId, { lock: true });
    if (!tier) throw unprocessable(`ticket tier ${tierId} does not exist`, 'unknown_tier');
    if (tier.eventId !== event.id) {
      throw unprocessable('the ticket tier belongs to another event', 'wrong_event');
    }
    tiers.set(tier.id, tier);
  }
  return { event, tiers };
}

function tierOf(tiers: ReadonlyMap<string, Tier>, id: string): Tier {
  const tier = tiers.get(id);
  if (!tier) throw new Error(`tier ${id} was not opened for this sale`);
  return tier;
}

/**
 * Writes an order for `event`, whose tiers `openSale` locked: a completed one counts its sales on
 * each tier (a 409 `sold_out` rather than oversell) and issues a ticket, with a fresh barcode
 * secret, and an attendee per line. Then the change records, as every sale writes them:
 * `order.created`, `ticket.created` and `attendee.created` per line, `tier.updated` per tier.
 */
async function writeOrder(
  tx: TenantContext,
  event: Event,
  tiers: ReadonlyMap<string, Tier>,
  input: Omit<PlaceOrderInput, 'eventId'>,
): Promise<IssuedOrder> {
  const completed = input.status === 'completed';
  // Seats are counted as sold once paid; a pending order holds none.
  if (completed) {
    const perTier = new Map<string, number>();
    for (const line of input.lines) perTier.set(line.tierId, (perTier.get(line.tierId) ?? 0) + 1);
    for (const [tierId, count] of perTier) countSold(tierOf(tiers, tierId), count);
  }
  const orderId = newId('order', input.placedAt);
  let subtotal = 0;
  const tickets: Ticket[] = [];
  const attendees: Attendee[] = [];
  const issued: Change[] = [];
  for (const line of input.lines) {
    const tier = tierOf(tiers, line.tierId);
    subtotal += tier.price;
    if (!completed) continue;
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
    tickets.push(ticket);
    attendees.push(attendee);
    issued.push(
      { type: 'ticket.created', object: toTicketResource(ticket, tx.livemode) },
      { type: 'attendee.created', object: toAttendeeResource(attendee, tx.livemode) },
    );
  }
  const fees = input.feePerTicket * input.lines.length;
  const order = tx.em.create(Order, {
    id: orderId,
    organisationId: tx.organisationId,
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
    paidAt: completed ? input.placedAt : null,
    cancelledAt: null,
    // An order, its tickets and attendees exist from when it was placed (history too).
    createdAt: input.placedAt,
  });
  // The flush stamps the tiers' `updatedAt`; the change records render them as stored.
  await tx.em.flush();
  await recordChanges(tx, [
    { type: 'order.created', object: toOrderResource(order, tx.livemode) },
    ...issued,
    ...(completed ? [...tiers.values()] : []).map((tier) => ({
      type: 'tier.updated' as const,
      object: toTierResource(tier, tx.livemode),
    })),
  ]);
  return { order, tickets, attendees };
}

/**
 * Places an order in one transaction, as the checkout hands it over: any tiers of one published
 * event, one attendee per line, `pending` or `completed` (see `writeOrder`). Only the event's
 * status and the tiers' stock are checked here; the tiers' other sales rules (status, window,
 * `max_per_order`) are the caller's, where `issueOrder` checks them all.
 */
export async function placeOrder(ctx: TenantContext, input: PlaceOrderInput): Promise<Order> {
  return inTransaction(ctx, async (tx) => {
    const { event, tiers } = await openSale(
      tx,
      input.eventId,
      input.lines.map((line) => line.tierId),
    );
    return (await writeOrder(tx, event, tiers, input)).order;
  });
}

export interface IssueOrderInput {
  eventId: string;
  tierId: string;
  /** Tickets to issue: 1 to MAX_TICKETS_PER_ORDER, and at most the tier's `max_per_order`. */
  quantity: number;
  /** Default `Test Buyer`. */
  buyerName?: string;
  /** Default `test.buyer@example.com`. */
  buyerEmail?: string;
  /**
   * Who holds each ticket, one entry per ticket in order; by default the buyer holds them all (the
   * buyer's name split into first name and the rest).
   */
  attendees?: AttendeeDetails[];
  /** Default `bookingFee` of the tier's price. */
  feePerTicket?: number;
  /**
   * When the order was placed and paid, and the moment the sales rules are checked at; default
   * the transaction's clock. Only history (demo data) passes an earlier one.
   */
  at?: Date;
}

const DEFAULT_BUYER = { name: 'Test Buyer', email: 'test.buyer@example.com' };

/** The buyer as the attendee of a ticket: first word as first name, the rest as last name. */
function buyerAsAttendee(name: string, email: string): AttendeeDetails {
  const [firstName = name, ...rest] = name.split(/\s+/);
  return { firstName, lastName: rest.join(' '), email, company: null, answers: [] };
}

/**
 * A completed (paid) order of `quantity` tickets of one tier, in one transaction, only if a buyer
 * could buy them at `at`: the event published, the tier on sale then (`checkOnSale`), within its
 * `max_per_order` and with enough tickets left, all checked with the event and the tier locked
 * (`openSale`). Writes and records it as every sale does (`writeOrder`); returns what it wrote.
 *
 * Refusals, in this order, change nothing: 400 `invalid_quantity` (or `invalid_request` for
 * `attendees` of another length); 422 `unknown_event`, `unknown_tier`, `wrong_event`; 409
 * `event_not_on_sale`, `tier_not_on_sale`; 422 `max_per_order_exceeded`; 409 `sold_out`.
 */
export async function issueOrder(ctx: TenantContext, input: IssueOrderInput): Promise<IssuedOrder> {
  const { quantity } = input;
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_TICKETS_PER_ORDER) {
    throw badRequest(
      `quantity must be an integer between 1 and ${MAX_TICKETS_PER_ORDER}`,
      'invalid_quantity',
    );
  }
  if (input.attendees && input.attendees.length !== quantity) {
    throw badRequest('attendees must name one attendee per ticket (quantity)');
  }
  const buyerName = input.buyerName?.trim() || DEFAULT_BUYER.name;
  const buyerEmail = input.buyerEmail?.trim() || DEFAULT_BUYER.email;
  return inTransaction(ctx, async (tx) => {
    const at = input.at ?? clock(tx.em);
    const { event, tiers } = await openSale(tx, input.eventId, [input.tierId]);
    const tier = tierOf(tiers, input.tierId);
    checkOnSale(tier, at, event.startsAt);
    if (tier.maxPerOrder != null && quantity > tier.maxPerOrder) {
      throw unprocessable(
        `at most ${tier.maxPerOrder} tickets of this tier may be in one order`,
        'max_per_order_exceeded',
      );
    }
    const buyer = buyerAsAttendee(buyerName, buyerEmail);
    return writeOrder(tx, event, tiers, {
      buyerName,
      buyerEmail,
      lines: Array.from({ length: quantity }, (_, i) => ({
        tierId: tier.id,
        attendee: input.attendees?.[i] ?? buyer,
      })),
      feePerTicket: input.feePerTicket ?? bookingFee(tier.price),
      status: 'completed',
      placedAt: at,
    });
  });
}

/** An order after its cancellation or refund, with its tickets, void now. */
export interface EndedOrder {
  order: Order;
  tickets: Ticket[];
}

/**
 * Ends a completed or pending order in the caller's transaction, the order locked: cancelled, or
 * refunded in full. Its tickets become void (checked-in ones too; their attendees are no longer
 * checked in) and their seats go back to their tiers. Records `order.updated`, `ticket.updated`
 * per ticket, `attendee.updated` per attendee moved out, and `tier.updated` per tier.
 */
async function endOrder(
  tx: TenantContext,
  order: Order,
  options: { refund: boolean; at: Date },
): Promise<EndedOrder> {
  const { tickets, admittedAttendeeIds } = await voidTicketsOfOrder(tx, order.id, options.at);
  const attendees = await markAttendeesOut(tx, admittedAttendeeIds, options.at);
  const perTier = new Map<string, number>();
  for (const ticket of tickets) perTier.set(ticket.tierId, (perTier.get(ticket.tierId) ?? 0) + 1);
  const tiers: Tier[] = [];
  for (const tierId of [...perTier.keys()].sort()) {
    tiers.push(await adjustSold(tx, tierId, -(perTier.get(tierId) ?? 0)));
  }
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
    ...attendees.map((attendee) => ({
      type: 'attendee.updated' as const,
      object: toAttendeeResource(attendee, tx.livemode),
    })),
    ...tiers.map((tier) => ({
      type: 'tier.updated' as const,
      object: toTierResource(tier, tx.livemode),
    })),
  ]);
  return { order, tickets };
}

/**
 * Cancels (or refunds) an order: its tickets become void and its seats go back on sale (see
 * `endOrder`). An order already cancelled or refunded is returned as it is.
 */
export async function cancelOrder(
  ctx: TenantContext,
  orderId: string,
  options: { refund: boolean; at: Date },
): Promise<Order> {
  return inTransaction(ctx, async (tx) => {
    const order = await getOwned(tx, Order, 'order', 'order', orderId, { lock: true });
    if (order.status === 'cancelled' || order.status === 'refunded') return order;
    return (await endOrder(tx, order, options)).order;
  });
}

/**
 * Refunds a completed order in full, in one transaction (see `endOrder`: its tickets, checked-in
 * ones too, become void and its seats go back to the tier), at `at` (default the transaction's
 * clock). 404 for an order not of this organisation; 409 `order_refunded` when it already is,
 * `order_cancelled` when it was cancelled, `order_not_paid` while it is pending; each changes
 * nothing.
 */
export async function refundOrder(
  ctx: TenantContext,
  orderId: string,
  options: { at?: Date } = {},
): Promise<EndedOrder> {
  return inTransaction(ctx, async (tx) => {
    const order = await getOwned(tx, Order, 'order', 'order', orderId, { lock: true });
    if (order.status === 'refunded') {
      throw conflict('the order is already refunded', 'order_refunded');
    }
    if (order.status === 'cancelled') {
      throw conflict('the order was cancelled: nothing was paid to refund', 'order_cancelled');
    }
    if (order.status === 'pending') {
      throw conflict('the order is not paid yet: nothing to refund', 'order_not_paid');
    }
    return endOrder(tx, order, { refund: true, at: options.at ?? clock(tx.em) });
  });
}

/** Deletes all the organisation's orders (a test environment's reset); how many. */
export const deleteAllOrders = (ctx: TenantContext): Promise<number> => deleteAllOwned(ctx, Order);
