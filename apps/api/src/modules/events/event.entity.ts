import { defineEntity, p } from '@mikro-orm/core';
import type { EventStatus } from '@boxoffice/contract';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const EventSchema = defineEntity({
  name: 'Event',
  tableName: 'events',
  extends: BaseEntity,
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
    status: p.text().$type<EventStatus>(),
    publishedAt: p.datetime().nullable(),
    cancelledAt: p.datetime().nullable(),
  },
});
export class Event extends EventSchema.class {}
EventSchema.setClass(Event);
