import { p } from '@mikro-orm/core';
import { TIER_STATUSES } from '@boxoffice/contract';
import { defineTenantEntity } from '../../db/base.entity';

export const TierSchema = defineTenantEntity({
  name: 'Tier',
  tableName: 'ticket_tiers',
  idKind: 'tier',
  // Listed in the organiser's order (`…_org_sort_index`), or by last change for syncs.
  listedBy: ['updated'],
  indexes: [
    { name: 'ticket_tiers_org_sort_index', properties: ['organisationId', 'sortOrder', 'id'] },
    {
      name: 'ticket_tiers_org_event_index',
      properties: ['organisationId', 'eventId', 'sortOrder', 'id'],
    },
  ],
  properties: {
    eventId: p.text().index('ticket_tiers_event_id_index'),
    name: p.text(),
    description: p.text().nullable(),
    price: p.integer(),
    currency: p.text(),
    quantityTotal: p.integer().nullable(),
    quantitySold: p.integer().default(0),
    maxPerOrder: p.integer().nullable(),
    salesStartAt: p.datetime().nullable(),
    salesEndAt: p.datetime().nullable(),
    sortOrder: p.integer().default(0),
    status: p.enum(TIER_STATUSES),
  },
});
export class Tier extends TierSchema.class {}
TierSchema.setClass(Tier);
