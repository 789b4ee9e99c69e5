import { defineEntity, p } from '@mikro-orm/core';
import type { TierStatus } from '@boxoffice/contract';

export const TierSchema = defineEntity({
  name: 'Tier',
  tableName: 'ticket_tiers',
  properties: {
    id: p.string().primary(),
    organisationId: p.text(),
    eventId: p.text(),
    name: p.text(),
    description: p.text().nullable(),
    price: p.integer(),
    currency: p.text(),
    quantityTotal: p.integer().nullable(),
    quantitySold: p.integer(),
    maxPerOrder: p.integer().nullable(),
    salesStartAt: p.datetime().nullable(),
    salesEndAt: p.datetime().nullable(),
    sortOrder: p.integer(),
    status: p.text().$type<TierStatus>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export class Tier extends TierSchema.class {}
TierSchema.setClass(Tier);
