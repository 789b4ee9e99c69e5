import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { Ticket as TicketResource, TicketStatus } from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { newTicketCode } from '../../core/ids';
import { getOwned, iso, isoOrNull } from '../../db/context';
import { listWhere } from '../../db/list-where';
import { findPage, type Page, type PageRequest } from '../../db/pages';
import { columnsOf, fixedText, fromRow } from '../../db/rows';
import { run } from '../../db/sql';
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
  const where = listWhere<Ticket>(ctx, query);
  if (query.order_id) where.orderId = query.order_id;
  if (query.tier_id) where.tierId = query.tier_id;
  if (query.code) where.code = query.code;
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
    // Changed when voided, also when that is recorded later (history); see base.entity.ts.
    ticket.updatedAt = at;
  }
  return tickets;
}

/**
 * The tenant's ticket with this id or barcode, locked (`FOR UPDATE`) until the surrounding
 * transaction ends; null if there is none. Plain SQL: it is the first statement of every scan.
 */
export async function lockTicket(
  ctx: TenantContext,
  by: { id: string } | { code: string },
): Promise<Ticket | null> {
  const { em } = ctx;
  const byId = 'id' in by;
  const [row] = await run(em, {
    text: fixedText(em, byId ? lockByIdText : lockByCodeText),
    params: [ctx.organisationId, byId ? by.id : by.code],
  });
  return row ? fromRow(em, Ticket, row) : null;
}

const lockByIdText = (em: EntityManager) =>
  `select ${columnsOf(em, Ticket)} from tickets where organisation_id = ? and id = ? for update`;
const lockByCodeText = (em: EntityManager) =>
  `select ${columnsOf(em, Ticket)} from tickets where organisation_id = ? and code = ? for update`;

/** `admission`'s statement, for the scan to run with its other writes. */
export const ADMISSION_TEXT =
  'update tickets set status = ?, checked_in_at = ?, updated_at = ? where id = ?';

/**
 * Admits (entry) or lets out (exit) a ticket locked with `lockTicket`: the ticket as changed, and
 * the values of ADMISSION_TEXT's placeholders that change it. Stamped with the scan's `at`, as the
 * rest of the scan: the ORM's stamps are not in it.
 */
export function admission(
  ticket: Ticket,
  inside: boolean,
  at: Date,
): { changed: Ticket; params: unknown[] } {
  const changed = {
    ...ticket,
    status: inside ? ('checked_in' as const) : ('valid' as const),
    checkedInAt: inside ? at : null,
    updatedAt: at,
  };
  return { changed, params: [changed.status, changed.checkedInAt, at, ticket.id] };
}
