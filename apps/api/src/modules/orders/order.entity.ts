import { defineEntity, p } from '@mikro-orm/core';
import { ORDER_STATUSES } from '@boxoffice/contract';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const OrderSchema = defineEntity({
  name: 'Order',
  tableName: 'orders',
  extends: BaseEntity,
  indexes: [
    { name: 'orders_org_created_index', properties: ['organisationId', 'createdAt', 'id'] },
    { name: 'orders_org_updated_index', properties: ['organisationId', 'updatedAt', 'id'] },
  ],
  uniques: [{ name: 'orders_org_reference_unique', properties: ['organisationId', 'reference'] }],
  properties: {
    id: primaryId('order'),
    organisationId: p.text(),
    eventId: p.text().index('orders_event_id_index'),
    reference: p.text(),
    buyerName: p.text(),
    buyerEmail: p.text(),
    status: p.enum(ORDER_STATUSES),
    subtotal: p.integer(),
    fees: p.integer(),
    total: p.integer(),
    refundedAmount: p.integer().default(0),
    currency: p.text(),
    ticketCount: p.integer(),
    placedAt: p.datetime(),
    paidAt: p.datetime().nullable(),
    cancelledAt: p.datetime().nullable(),
  },
});
export class Order extends OrderSchema.class {}
OrderSchema.setClass(Order);
