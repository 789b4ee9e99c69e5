import type { EntityManager } from '@mikro-orm/postgresql';
import type { Attendee as AttendeeResource, AttendeeAnswer } from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { getOwned, iso, likeEscape } from '../../db/context';
import { listWhere } from '../../db/list-where';
import { findPage, type Page, type PageRequest } from '../../db/pages';
import { columnsOf, fromRow } from '../../db/rows';
import { Attendee } from './attendee.entity';

export const toAttendeeResource = (attendee: Attendee): AttendeeResource => ({
  id: attendee.id,
  ticket_id: attendee.ticketId,
  order_id: attendee.orderId,
  event_id: attendee.eventId,
  first_name: attendee.firstName,
  last_name: attendee.lastName,
  email: attendee.email ?? null,
  company: attendee.company ?? null,
  answers: attendee.answers,
  checked_in: attendee.checkedIn,
  created_at: iso(attendee.createdAt),
  updated_at: iso(attendee.updatedAt),
});

export interface AttendeeFilters extends PageRequest {
  event_id?: string;
  order_id?: string;
  ticket_id?: string;
  email?: string;
  checked_in?: boolean;
  updated_since?: Date;
}

export async function listAttendees(
  ctx: TenantContext,
  query: AttendeeFilters,
): Promise<Page<Attendee>> {
  const where = listWhere<Attendee>(ctx, query);
  if (query.order_id) where.orderId = query.order_id;
  if (query.ticket_id) where.ticketId = query.ticket_id;
  if (query.email) where.email = { $ilike: likeEscape(query.email) };
  if (query.checked_in !== undefined) where.checkedIn = query.checked_in;
  return findPage(ctx.em, Attendee, where, query);
}

export const getAttendee = (ctx: TenantContext, id: string): Promise<Attendee> =>
  getOwned(ctx, Attendee, 'attendee', 'attendee', id);

export interface RegisterAttendeeInput {
  ticketId: string;
  orderId: string;
  eventId: string;
  firstName: string;
  lastName: string;
  email: string | null;
  company: string | null;
  answers: AttendeeAnswer[];
  registeredAt: Date;
}

/** The attendee of a new ticket; `id` when the caller needs it first (the ticket refers to it). */
export function registerAttendee(
  ctx: TenantContext,
  input: RegisterAttendeeInput,
  id?: string,
): Attendee {
  return ctx.em.create(Attendee, {
    id,
    organisationId: ctx.organisationId,
    ticketId: input.ticketId,
    orderId: input.orderId,
    eventId: input.eventId,
    firstName: input.firstName,
    lastName: input.lastName,
    email: input.email,
    company: input.company,
    answers: input.answers,
    checkedIn: false,
    createdAt: input.registeredAt,
  });
}

/**
 * Sets the attendee's `checked_in` to follow its ticket: the statement's text, for the scan to run
 * with its other writes (built once per ORM, `fixedText`). It returns the attendee as changed
 * (read with `followedAttendee`), or no row when the attendee already had that value (nothing
 * changed, nothing to record). Stamped with the scan's `at`, as the rest of the scan: the ORM's
 * stamps are not in it.
 */
export const followAdmissionText = (em: EntityManager): string =>
  `update attendees set checked_in = ?, updated_at = ?
    where id = ? and organisation_id = ? and checked_in <> ?
    returning ${columnsOf(em, Attendee)}`;

/** The values of `followAdmissionText`'s placeholders, in their order. */
export const followAdmission = (
  ctx: TenantContext,
  attendeeId: string,
  inside: boolean,
  at: Date,
): unknown[] => [inside, at, attendeeId, ctx.organisationId, inside];

/** A row returned by `followAdmissionText`'s statement, as the attendee. */
export const followedAttendee = (ctx: TenantContext, row: Record<string, unknown>): Attendee =>
  fromRow(ctx.em, Attendee, row);
