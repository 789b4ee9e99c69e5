import { LockMode, type FilterQuery } from '@mikro-orm/postgresql';
import type { Ticket as TicketResource, TicketStatus } from '@boxoffice/contract';
import {
  findPage,
  getOwned,
  iso,
  isoOrNull,
  type Page,
  type PageRequest,
  type TenantContext,
} from '../../db/context';
import { newId, newTicketCode } from '../../db/ids';
import { Ticket } from './ticket.entity';

export const toTicketResource = (ticket: Ticket): TicketResource => ({
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
  created_at: iso(ticket.createdAt),
  updated_at: iso(ticket.updatedAt),
});

export interface TicketFilters extends PageRequest {
  event_id?: string;
  order_id?: string;
  tier_id?: string;
  status?: TicketStatus[];
  code?: string;
  updated_since?: Date;
}

export async function listTickets(ctx: TenantContext, query: TicketFilters): Promise<Page<Ticket>> {
  const where: FilterQuery<Ticket> = { organisationId: ctx.organisationId };
  if (query.event_id) where.eventId = query.event_id;
  if (query.order_id) where.orderId = query.order_id;
  if (query.tier_id) where.tierId = query.tier_id;
  if (query.status) where.status = { $in: query.status };
  if (query.code) where.code = query.code;
  if (query.updated_since) where.updatedAt = { $gte: query.updated_since };
  return findPage(ctx.em, Ticket, where, query);
}

export const getTicket = (ctx: TenantContext, id: string): Promise<Ticket> =>
  getOwned(ctx, Ticket, 'ticket', 'ticket', id);

export interface IssueTicketInput {
  orderId: string;
  eventId: string;
  tierId: string;
  attendeeId: string;
  price: number;
  currency: string;
  issuedAt: Date;
}

/** A valid ticket for a completed order, with a fresh barcode secret. */
export function issueTicket(
  ctx: TenantContext,
  input: IssueTicketInput,
  id = newId('ticket', input.issuedAt),
): Ticket {
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
    updatedAt: input.issuedAt,
  });
}

/** Voids every ticket of an order (cancelled or refunded); returns them. */
export async function voidTicketsOfOrder(
  ctx: TenantContext,
  orderId: string,
  at: Date,
): Promise<Ticket[]> {
  const tickets = await ctx.em.find(
    Ticket,
    { organisationId: ctx.organisationId, orderId },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  for (const ticket of tickets) {
    ticket.status = 'void';
    ticket.voidedAt = at;
    ticket.updatedAt = at;
  }
  return tickets;
}
