import { defineEntity, p } from '@mikro-orm/core';
import { EVENT_STATUSES } from '@boxoffice/contract';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const EventSchema = defineEntity({
  name: 'Event',
  tableName: 'events',
  extends: BaseEntity,
  indexes: [
    { name: 'events_org_created_index', properties: ['organisationId', 'createdAt', 'id'] },
    { name: 'events_org_updated_index', properties: ['organisationId', 'updatedAt', 'id'] },
  ],
  // What tiers refer to, with their currency (see the migration `…_tier_currency`).
  uniques: [{ name: 'events_id_currency_unique', properties: ['id', 'currency'] }],
  properties: {
    id: primaryId('event'),
    organisationId: p.text(),
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
