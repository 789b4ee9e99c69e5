import type { WebhookEvent } from '@boxoffice/sdk';

type Checkin = Extract<WebhookEvent, { type: 'checkin.created' }>['data']['object'];

/**
 * Who is inside, per event, from check-ins as they are pushed. A delivery may come twice (the
 * same `webhook-id` after a lost answer), so each check-in counts once, by its id.
 */
export class Occupancy {
  readonly #seen = new Set<string>();
  readonly #inside = new Map<string, Set<string>>();
  #last: Checkin | undefined;

  /** Applies one check-in; false when it was already counted. */
  apply(checkin: Checkin): boolean {
    if (this.#seen.has(checkin.id)) return false;
    this.#seen.add(checkin.id);
    const inside = this.#inside.get(checkin.event_id) ?? new Set<string>();
    if (checkin.direction === 'entry') inside.add(checkin.ticket_id);
    else inside.delete(checkin.ticket_id);
    this.#inside.set(checkin.event_id, inside);
    this.#last = checkin;
    return true;
  }

  inside(eventId: string): number {
    return this.#inside.get(eventId)?.size ?? 0;
  }

  snapshot(): { events: Record<string, number>; last: Checkin | null } {
    const events: Record<string, number> = {};
    for (const [eventId, tickets] of this.#inside) events[eventId] = tickets.size;
    return { events, last: this.#last ?? null };
  }
}
