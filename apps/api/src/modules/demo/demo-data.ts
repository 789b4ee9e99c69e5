import type { EntityManager } from '@mikro-orm/postgresql';

export interface SeedCounts {
  events: number;
  tiers: number;
  orders: number;
  tickets: number;
  attendees: number;
  checkins: number;
  payouts: number;
}

/** Placeholder until the demo data generator lands. */
export async function seedDemoData(
  _em: EntityManager,
  _organisationId: string,
  _options: { events?: number; now?: Date },
): Promise<SeedCounts> {
  return { events: 0, tiers: 0, orders: 0, tickets: 0, attendees: 0, checkins: 0, payouts: 0 };
}
