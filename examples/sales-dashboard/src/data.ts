import type { Boxoffice, Checkin, Event, Order, Page, PagePromise, Tier } from '@boxoffice/sdk';

export type OrderStatus = Order['status'];
export const ORDER_STATUSES: readonly OrderStatus[] = [
  'completed',
  'pending',
  'cancelled',
  'refunded',
];

/** How many of the latest check-ins the page lists (each costs one read for the name). */
export const RECENT_CHECKINS = 8;

export interface RecentCheckin {
  checkin: Checkin;
  /** Undefined when the attendee could not be read. */
  name: string | undefined;
}

export interface EventDashboard {
  event: Event;
  tiers: Tier[];
  orders: Record<OrderStatus, number>;
  /** Tickets that can get in: valid or checked in (void ones excluded). */
  tickets: number;
  /** Attendees inside now. */
  checkedIn: number;
  /** Every scan recorded, entries and exits. */
  scans: number;
  /** Newest first. */
  recent: RecentCheckin[];
  loadedAt: Date;
  /** API read requests this view took. */
  reads: number;
}

export interface EventPicker {
  events: Event[];
  loadedAt: Date;
  reads: number;
}

/** Counts the reads a view makes, to keep each within the rate limit (see the README). */
class ReadCounter {
  reads = 0;

  one<T>(request: PromiseLike<T>): Promise<T> {
    this.reads += 1;
    return Promise.resolve(request);
  }

  /** Only how many match: one read of one item, answered by the list's `total`. */
  async total(list: PagePromise<unknown>): Promise<number> {
    return (await this.one(list)).total;
  }

  /** Every item, 100 to a read. */
  async all<T>(list: PagePromise<T>): Promise<T[]> {
    const items: T[] = [];
    for await (const page of list.iterPages()) {
      this.reads += 1;
      items.push(...page.data);
    }
    return items;
  }
}

/** The published events, for the picker. */
export async function loadPicker(client: Boxoffice): Promise<EventPicker> {
  const counter = new ReadCounter();
  const events = await counter.all(client.events.list({ status: 'published', limit: 100 }));
  events.sort((a, b) => a.starts_at.localeCompare(b.starts_at));
  return { events, loadedAt: new Date(), reads: counter.reads };
}

/**
 * Everything the event page shows, in about 12 to 20 reads: the event first (so a wrong id costs
 * one read), then tiers, order counts per status, ticket and check-in totals and the latest
 * check-ins in parallel, then the names of the people in them. Counts come from `total` of
 * one-item lists rather than from reading every order or ticket.
 */
export async function loadEventDashboard(
  client: Boxoffice,
  eventId: string,
): Promise<EventDashboard> {
  const counter = new ReadCounter();
  const event = await counter.one(client.events.get(eventId));
  const [tiers, orderTotals, tickets, checkedIn, firstCheckins] = await Promise.all([
    counter.all(client.tiers.list({ event_id: eventId, limit: 100 })),
    Promise.all(
      ORDER_STATUSES.map((status) =>
        counter.total(client.orders.list({ event_id: eventId, status, limit: 1 })),
      ),
    ),
    counter.total(
      client.tickets.list({ event_id: eventId, status: ['valid', 'checked_in'], limit: 1 }),
    ),
    counter.total(client.attendees.list({ event_id: eventId, checked_in: true, limit: 1 })),
    counter.one(client.checkins.list({ event_id: eventId, limit: RECENT_CHECKINS })),
  ]);
  const latest = await latestCheckins(client, counter, eventId, firstCheckins);
  const recent = await Promise.all(
    latest.map(async (checkin) => ({
      checkin,
      name: await counter
        .one(client.attendees.get(checkin.attendee_id))
        .then((attendee) => `${attendee.first_name} ${attendee.last_name}`.trim())
        .catch(() => undefined),
    })),
  );
  const orders = Object.fromEntries(
    ORDER_STATUSES.map((status, i) => [status, orderTotals[i] ?? 0]),
  ) as Record<OrderStatus, number>;
  return {
    event,
    tiers,
    orders,
    tickets,
    checkedIn,
    scans: firstCheckins.total,
    recent,
    loadedAt: new Date(),
    reads: counter.reads,
  };
}

/**
 * The newest check-ins. Lists run oldest first, so they sit on the last page: with `total` from
 * the first page, read the last page (and the one before when the last is short).
 */
async function latestCheckins(
  client: Boxoffice,
  counter: ReadCounter,
  eventId: string,
  first: Page<Checkin>,
): Promise<Checkin[]> {
  let items = first.data;
  if (first.total > RECENT_CHECKINS) {
    const last = Math.ceil(first.total / RECENT_CHECKINS);
    const pages = first.total % RECENT_CHECKINS === 0 ? [last] : [last - 1, last];
    const fetched = await Promise.all(
      pages.map((page) =>
        counter.one(client.checkins.list({ event_id: eventId, limit: RECENT_CHECKINS, page })),
      ),
    );
    items = fetched.flatMap((page) => page.data);
  }
  const byId = new Map(items.map((checkin) => [checkin.id, checkin]));
  return [...byId.values()]
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
    .slice(0, RECENT_CHECKINS);
}

/**
 * Shares one load between the visitors of a page for `ttlMs`: with the page refreshing itself
 * every `ttlMs`, reads per minute stay the same however many screens show it. Failures are not
 * kept, so the next view tries again.
 */
export class ViewCache<T> {
  private readonly entries = new Map<string, { expires: number; value: Promise<T> }>();

  constructor(private readonly ttlMs: number) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return hit.value;
    for (const [k, entry] of this.entries) if (entry.expires <= now) this.entries.delete(k);
    const value = load();
    this.entries.set(key, { expires: now + this.ttlMs, value });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }
}
