import { defineEntity, p } from '@mikro-orm/core';
import type { TierStatus } from '@boxoffice/contract';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const TierSchema = defineEntity({
  name: 'Tier',
  tableName: 'ticket_tiers',
  extends: BaseEntity,
  properties: {
    id: primaryId('tier'),
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
  },
});
export class Tier extends TierSchema.class {}
TierSchema.setClass(Tier);
