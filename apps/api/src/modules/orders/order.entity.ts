import { defineEntity, p } from '@mikro-orm/core';
import type { OrderStatus } from '@boxoffice/contract';

export const OrderSchema = defineEntity({
  name: 'Order',
  tableName: 'orders',
  properties: {
    id: p.string().primary(),
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
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export class Order extends OrderSchema.class {}
OrderSchema.setClass(Order);
