import { LockMode } from '@mikro-orm/postgresql';
import type { Ticket as TicketResource } from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { newTicketCode } from '../../core/ids';
import { isoOrNull } from '../../core/iso-time';
import { stampsOf } from '../../core/stamps';
import { deleteAllOwned, getOwned } from '../../db/owned';
import { resourceList, type ListFilters } from '../../db/resource-list';
import { Ticket } from './ticket.entity';
import { lockTicketRow, lockTicketRows, type TicketRow } from './ticket.repository';

/** The ticket as the API renders it; `livemode` says whether it is live data or test data. */
export const toTicketResource = (ticket: TicketRow, livemode: boolean): TicketResource => ({
  id: ticket.id,
  order_id: ticket.orderId,
  event_id: ticket.eventId,
  tier_id: ticket.tierId,
  attendee_id: ticket.attendeeId,
  code: ticket.code,
  status: ticket.status,
  price: ticket.price,
  currency: ticket.currency,
  checked_in_at: isoOrNull(ticket.checkedInAt),
  voided_at: isoOrNull(ticket.voidedAt),
  ...stampsOf(ticket, livemode),
});

/** The ticket list: `order_id`, `tier_id` and `code` besides the shared filters. */
export const ticketList = resourceList<Ticket, ListFilters<'tickets'>>(Ticket, (where, query) => {
  if (query.order_id) where.orderId = query.order_id;
  if (query.tier_id) where.tierId = query.tier_id;
  if (query.code) where.code = query.code;
});

export const getTicket = (ctx: TenantContext, id: string): Promise<Ticket> =>
  getOwned(ctx, Ticket, 'ticket', 'ticket', id);

export type IssueTicketInput = Pick<
  Ticket,
  'orderId' | 'eventId' | 'tierId' | 'attendeeId' | 'price' | 'currency'
> & { issuedAt: Date };

/**
 * A valid ticket for a completed order, with a fresh barcode secret; `id` when the caller needs it
 * first (its attendee refers to it).
 */
export function issueTicket(ctx: TenantContext, input: IssueTicketInput, id?: string): Ticket {
  return ctx.em.create(Ticket, {
    id,
    organisationId: ctx.organisationId,
    orderId: input.orderId,
    eventId: input.eventId,
    tierId: input.tierId,
    attendeeId: input.attendeeId,
    code: newTicketCode(),
    status: 'valid',
    price: input.price,
    currency: input.currency,
    checkedInAt: null,
    voidedAt: null,
    createdAt: input.issuedAt,
  });
}

/** The tickets of an order as voiding left them, and who was inside when it happened. */
export interface VoidedTickets {
  tickets: Ticket[];
  /** The attendees of the tickets that were checked in: they no longer are. */
  admittedAttendeeIds: string[];
}

/**
 * Voids every ticket of an order (cancelled or refunded), locked, checked-in ones too: a void
 * ticket admits nobody, so its admission (`checked_in_at`) ends with it; the caller moves the
 * attendees of `admittedAttendeeIds` out (their `checked_in` follows the ticket).
 */
export async function voidTicketsOfOrder(
  ctx: TenantContext,
  orderId: string,
  at: Date,
): Promise<VoidedTickets> {
  const tickets = await ctx.em.find(
    Ticket,
    { organisationId: ctx.organisationId, orderId },
    { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' } },
  );
  const admittedAttendeeIds: string[] = [];
  for (const ticket of tickets) {
    if (ticket.status === 'checked_in') admittedAttendeeIds.push(ticket.attendeeId);
    ticket.status = 'void';
    ticket.voidedAt = at;
    ticket.checkedInAt = null;
    // Changed when voided, also when that is recorded later (history); see base.entity.ts.
    ticket.updatedAt = at;
  }
  return { tickets, admittedAttendeeIds };
}

/**
 * The tenant's ticket with this id or barcode, locked (`FOR UPDATE`) until the surrounding
 * transaction ends; null if there is none.
 */
export const lockTicket = (
  ctx: TenantContext,
  by: { id: string } | { code: string },
): Promise<TicketRow | null> => lockTicketRow(ctx.em, ctx.organisationId, by);

/**
 * Locks the tenant's tickets with these ids or barcodes until the surrounding transaction ends,
 * in one order shared by every writer that locks several (see `lockTicketRows`).
 */
export const lockTickets = (
  ctx: TenantContext,
  by: { ids: string[]; codes: string[] },
): Promise<void> => lockTicketRows(ctx.em, ctx.organisationId, by);

/** Deletes all the organisation's tickets (a test environment's reset); how many. */
export const deleteAllTickets = (ctx: TenantContext): Promise<number> =>
  deleteAllOwned(ctx, Ticket);
