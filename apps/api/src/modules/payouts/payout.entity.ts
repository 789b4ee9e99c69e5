import { defineEntity, p } from '@mikro-orm/core';
import { PAYOUT_STATUSES } from '@boxoffice/contract';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const PayoutSchema = defineEntity({
  name: 'Payout',
  tableName: 'payouts',
  extends: BaseEntity,
  indexes: [
    { name: 'payouts_org_created_index', properties: ['organisationId', 'createdAt', 'id'] },
    { name: 'payouts_org_updated_index', properties: ['organisationId', 'updatedAt', 'id'] },
  ],
  properties: {
    id: primaryId('payout'),
    organisationId: p.text(),
    eventId: p.text().nullable(),
    grossAmount: p.integer(),
    feesAmount: p.integer(),
    refundsAmount: p.integer(),
    amount: p.integer(),
    currency: p.text(),
    status: p.enum(PAYOUT_STATUSES),
    periodStart: p.datetime(),
    periodEnd: p.datetime(),
    arrivalDate: p.date().nullable(),
    paidAt: p.datetime().nullable(),
    failureReason: p.text().nullable(),
  },
});
export class Payout extends PayoutSchema.class {}
PayoutSchema.setClass(Payout);
