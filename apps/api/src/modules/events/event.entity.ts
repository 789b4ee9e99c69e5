import { p } from '@mikro-orm/core';
import { EVENT_STATUSES } from '@boxoffice/contract';
import { defineTenantEntity } from '../../db/base.entity';

export const EventSchema = defineTenantEntity({
  name: 'Event',
  tableName: 'events',
  idKind: 'event',
  // What tiers refer to, with their currency (see the migration `…_tier_currency`).
  uniques: [{ name: 'events_id_currency_unique', properties: ['id', 'currency'] }],
  properties: {
    name: p.text(),
    description: p.text().nullable(),
    venue: p.text().nullable(),
    timezone: p.text(),
    startsAt: p.datetime(),
    endsAt: p.datetime(),
    doorsOpenAt: p.datetime().nullable(),
    currency: p.text(),
    capacity: p.integer().nullable(),
    status: p.enum(EVENT_STATUSES),
    publishedAt: p.datetime().nullable(),
    cancelledAt: p.datetime().nullable(),
  },
});
export class Event extends EventSchema.class {}
EventSchema.setClass(Event);
