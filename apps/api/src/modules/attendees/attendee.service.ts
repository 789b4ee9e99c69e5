import type { Attendee as AttendeeResource } from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { stampsOf } from '../../core/stamps';
import { deleteAllOwned, getOwned } from '../../db/owned';
import { likeEscape } from '../../db/pages';
import { resourceList, type ListFilters } from '../../db/resource-list';
import { Attendee } from './attendee.entity';

/** The attendee as the API renders it; `livemode` says whether it is live data or test data. */
export const toAttendeeResource = (attendee: Attendee, livemode: boolean): AttendeeResource => ({
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
  ...stampsOf(attendee, livemode),
});

/** The attendee list: `order_id`, `ticket_id`, `email` and `checked_in` besides the shared filters. */
export const attendeeList = resourceList<Attendee, ListFilters<'attendees'>>(
  Attendee,
  (where, query) => {
    if (query.order_id) where.orderId = query.order_id;
    if (query.ticket_id) where.ticketId = query.ticket_id;
    if (query.email) where.email = { $ilike: likeEscape(query.email) };
    if (query.checked_in !== undefined) where.checkedIn = query.checked_in;
  },
);

export const getAttendee = (ctx: TenantContext, id: string): Promise<Attendee> =>
  getOwned(ctx, Attendee, 'attendee', 'attendee', id);

export type RegisterAttendeeInput = Pick<
  Attendee,
  'ticketId' | 'orderId' | 'eventId' | 'firstName' | 'lastName' | 'email' | 'company' | 'answers'
> & { registeredAt: Date };

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
 * Moves attendees out (`checked_in` false) when their tickets stop admitting them (voided while
 * checked in), in the caller's transaction; returns those that changed, for its change records.
 */
export async function markAttendeesOut(
  ctx: TenantContext,
  ids: readonly string[],
  at: Date,
): Promise<Attendee[]> {
  if (ids.length === 0) return [];
  const attendees = await ctx.em.find(
    Attendee,
    { organisationId: ctx.organisationId, id: { $in: [...ids] }, checkedIn: true },
    { orderBy: { id: 'asc' } },
  );
  for (const attendee of attendees) {
    attendee.checkedIn = false;
    attendee.updatedAt = at;
  }
  return attendees;
}

/** Deletes all the organisation's attendees (a test environment's reset); how many. */
export const deleteAllAttendees = (ctx: TenantContext): Promise<number> =>
  deleteAllOwned(ctx, Attendee);
