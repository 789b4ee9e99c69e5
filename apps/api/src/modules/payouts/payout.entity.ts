import { p } from '@mikro-orm/core';
import { PAYOUT_STATUSES } from '@boxoffice/contract';
import { defineTenantEntity } from '../../db/base.entity';

export const PayoutSchema = defineTenantEntity({
  name: 'Payout',
  tableName: 'payouts',
  idKind: 'payout',
  properties: {
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
