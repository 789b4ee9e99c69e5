import { defineEntity, p } from '@mikro-orm/core';
import type { PayoutStatus } from '@boxoffice/contract';

export const PayoutSchema = defineEntity({
  name: 'Payout',
  tableName: 'payouts',
  properties: {
    id: p.string().primary(),
    organisationId: p.text(),
    eventId: p.text().nullable(),
    grossAmount: p.integer(),
    feesAmount: p.integer(),
    refundsAmount: p.integer(),
    amount: p.integer(),
    currency: p.text(),
    status: p.text().$type<PayoutStatus>(),
    periodStart: p.datetime(),
    periodEnd: p.datetime(),
    arrivalDate: p.date().nullable(),
    paidAt: p.datetime().nullable(),
    failureReason: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export class Payout extends PayoutSchema.class {}
PayoutSchema.setClass(Payout);
