import { p } from '@mikro-orm/core';
import { ORDER_STATUSES } from '@boxoffice/contract';
import { defineTenantEntity } from '../../db/base.entity';

export const OrderSchema = defineTenantEntity({
  name: 'Order',
  tableName: 'orders',
  idKind: 'order',
  uniques: [{ name: 'orders_org_reference_unique', properties: ['organisationId', 'reference'] }],
  properties: {
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
