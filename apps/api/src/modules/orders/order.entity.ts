import { defineEntity, p } from '@mikro-orm/core';
import type { OrderStatus } from '@boxoffice/contract';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const OrderSchema = defineEntity({
  name: 'Order',
  tableName: 'orders',
  extends: BaseEntity,
  properties: {
    id: primaryId('order'),
    organisationId: p.text(),
    eventId: p.text(),
    reference: p.text(),
    buyerName: p.text(),
    buyerEmail: p.text(),
    status: p.text().$type<OrderStatus>(),
    subtotal: p.integer(),
    fees: p.integer(),
    total: p.integer(),
    refundedAmount: p.integer(),
    currency: p.text(),
    ticketCount: p.integer(),
    placedAt: p.datetime(),
    paidAt: p.datetime().nullable(),
    cancelledAt: p.datetime().nullable(),
  },
});
export class Order extends OrderSchema.class {}
OrderSchema.setClass(Order);
