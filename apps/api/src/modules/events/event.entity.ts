import { defineEntity, p } from '@mikro-orm/core';
import type { EventStatus } from '@boxoffice/contract';

export const EventSchema = defineEntity({
  name: 'Event',
  tableName: 'events',
  properties: {
    id: p.string().primary(),
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
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export class Event extends EventSchema.class {}
EventSchema.setClass(Event);
