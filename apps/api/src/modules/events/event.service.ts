import { ForeignKeyConstraintViolationException } from '@mikro-orm/postgresql';
import {
  EVENT_TRANSITIONS,
  type Event as EventResource,
  type EventCreate,
  type EventStatus,
  type EventUpdate,
} from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { badRequest, conflict } from '../../core/errors';
import { deleteAllOwned, findOwned, getOwned, type Lock } from '../../db/owned';
import { clock, inTransaction } from '../../db/driver';
import { iso, isoOrNull } from '../../core/iso-time';
import { stampsOf } from '../../core/stamps';
import { likeEscape } from '../../db/pages';
import { resourceList, type ListFilters } from '../../db/resource-list';
import { recordChanges } from '../changes/change.service';
import { Event } from './event.entity';

/** The event as the API renders it; `livemode` says whether it is live data or test data. */
export const toEventResource = (event: Event, livemode: boolean): EventResource => ({
  id: event.id,
  name: event.name,
  description: event.description ?? null,
  venue: event.venue ?? null,
  timezone: event.timezone,
  starts_at: iso(event.startsAt),
  ends_at: iso(event.endsAt),
  doors_open_at: isoOrNull(event.doorsOpenAt),
  currency: event.currency,
  capacity: event.capacity ?? null,
  status: event.status,
  published_at: isoOrNull(event.publishedAt),
  cancelled_at: isoOrNull(event.cancelledAt),
  ...stampsOf(event, livemode),
});

/** The event list: `starts_after`/`starts_before` and `q` besides the shared filters. */
export const eventList = resourceList<Event, ListFilters<'events'>>(Event, (where, query) => {
  if (query.starts_after || query.starts_before) {
    where.startsAt = {
      ...(query.starts_after ? { $gte: query.starts_after } : {}),
      ...(query.starts_before ? { $lt: query.starts_before } : {}),
    };
  }
  if (query.q) where.name = { $ilike: `%${likeEscape(query.q)}%` };
});

/** The organisation's event, or a 404; `lock` takes a row lock for the rest of the transaction. */
export const getEvent = (
  ctx: TenantContext,
  id: string,
  options: { lock?: boolean } = {},
): Promise<Event> => getOwned(ctx, Event, 'event', 'event', id, options);

/**
 * Like `getEvent`, but null instead of a 404, for services that answer differently (422). With
 * `lock`, the event cannot change (its status, its currency) until the transaction ends; with
 * `lock: 'share'`, others may hold it so too (sales of its tiers) but none may change it.
 */
export const findEvent = (
  ctx: TenantContext,
  id: string,
  options: { lock?: Lock } = {},
): Promise<Event | null> => findOwned(ctx, Event, 'event', id, options);

const toDate = (value: string | null | undefined): Date | null | undefined =>
  value === undefined ? undefined : value === null ? null : new Date(value);

function checkTimes(event: Pick<Event, 'startsAt' | 'endsAt'>): void {
  if (event.endsAt.getTime() <= event.startsAt.getTime()) {
    throw badRequest('ends_at must be after starts_at');
  }
}

export function createEvent(ctx: TenantContext, input: EventCreate): Promise<Event> {
  return inTransaction(ctx, async (tx) => {
    const status = input.status ?? 'draft';
    const event = tx.em.create(Event, {
      organisationId: ctx.organisationId,
      name: input.name,
      description: input.description ?? null,
      venue: input.venue ?? null,
      timezone: input.timezone,
      startsAt: new Date(input.starts_at),
      endsAt: new Date(input.ends_at),
      doorsOpenAt: toDate(input.doors_open_at) ?? null,
      currency: input.currency,
      capacity: input.capacity ?? null,
      status,
      publishedAt: null,
      cancelledAt: null,
    });
    // Published as it was created.
    if (status === 'published') event.publishedAt = event.createdAt;
    checkTimes(event);
    await recordChanges(tx, [
      { type: 'event.created', object: toEventResource(event, tx.livemode) },
    ]);
    return event;
  });
}

/** Applies a status change with its timestamps; 409 if the transition is not allowed. */
function transition(event: Event, to: EventStatus, now: Date): void {
  if (event.status === to) return;
  if (!EVENT_TRANSITIONS[event.status].includes(to)) {
    throw conflict(
      `event status cannot change from ${event.status} to ${to}`,
      'illegal_transition',
    );
  }
  event.status = to;
  if (to === 'published') event.publishedAt = now;
  if (to === 'cancelled') event.cancelledAt = now;
}

export const isEventFinal = (event: Event): boolean =>
  event.status === 'cancelled' || event.status === 'completed';

/** A 409 `event_not_on_sale` unless the event is published: only a published event sells tickets. */
export function checkEventOnSale(event: Event): void {
  if (event.status !== 'published') {
    throw conflict(
      `orders can only be placed for published events, not ${event.status} ones`,
      'event_not_on_sale',
    );
  }
}

/** Tiers refer to their event's id and currency (migration `…_tier_currency`). */
const TIER_CURRENCY_CONSTRAINT = 'ticket_tiers_event_id_currency_fkey';

/**
 * Writes a new currency at once: the database refuses it while the event has tiers, which hold
 * its currency too. Asked before any other change is made, so its 409 comes before theirs.
 */
async function changeCurrency(tx: TenantContext, event: Event, currency: string): Promise<void> {
  event.currency = currency;
  try {
    await tx.em.flush();
  } catch (error) {
    // PostgreSQL up to 17 reports the refusal as a foreign key violation (23503), 18 and later
    // as a restrict violation (23001), which the ORM leaves unclassified.
    const { code, constraint } = error as { code?: string; constraint?: string };
    const refused =
      (error instanceof ForeignKeyConstraintViolationException || code === '23001') &&
      constraint === TIER_CURRENCY_CONSTRAINT;
    if (!refused) throw error;
    throw conflict('currency cannot change once the event has ticket tiers', 'currency_locked');
  }
}

export async function updateEvent(
  ctx: TenantContext,
  id: string,
  input: EventUpdate,
): Promise<Event> {
  return inTransaction(ctx, async (tx) => {
    const event = await getEvent(tx, id, { lock: true });
    if (Object.keys(input).length === 0) return event;
    const now = clock(tx.em);
    const changingDetails = Object.keys(input).some((key) => key !== 'status');
    if (changingDetails && isEventFinal(event)) {
      throw conflict(`a ${event.status} event cannot be changed`, 'event_final');
    }
    if (input.currency !== undefined && input.currency !== event.currency) {
      await changeCurrency(tx, event, input.currency);
    }
    if (input.name !== undefined) event.name = input.name;
    if (input.description !== undefined) event.description = input.description;
    if (input.venue !== undefined) event.venue = input.venue;
    if (input.timezone !== undefined) event.timezone = input.timezone;
    if (input.starts_at !== undefined) event.startsAt = new Date(input.starts_at);
    if (input.ends_at !== undefined) event.endsAt = new Date(input.ends_at);
    if (input.doors_open_at !== undefined) event.doorsOpenAt = toDate(input.doors_open_at) ?? null;
    if (input.capacity !== undefined) event.capacity = input.capacity;
    if (input.status !== undefined) transition(event, input.status, now);
    checkTimes(event);
    // The flush stamps `updatedAt`; the change record renders the row as it is stored.
    await tx.em.flush();
    await recordChanges(tx, [
      { type: 'event.updated', object: toEventResource(event, tx.livemode) },
    ]);
    return event;
  });
}

/** Deletes all the organisation's events (a test environment's reset); how many. */
export const deleteAllEvents = (ctx: TenantContext): Promise<number> => deleteAllOwned(ctx, Event);
