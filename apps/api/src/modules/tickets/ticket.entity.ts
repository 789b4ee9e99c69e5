import { defineEntity, p } from '@mikro-orm/core';
import { TICKET_STATUSES } from '@boxoffice/contract';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const TicketSchema = defineEntity({
  name: 'Ticket',
  tableName: 'tickets',
  extends: BaseEntity,
  indexes: [
    { name: 'tickets_org_created_index', properties: ['organisationId', 'createdAt', 'id'] },
    { name: 'tickets_org_updated_index', properties: ['organisationId', 'updatedAt', 'id'] },
  ],
  properties: {
    id: primaryId('ticket'),
    organisationId: p.text(),
    orderId: p.text().index('tickets_order_id_index'),
    eventId: p.text().index('tickets_event_id_index'),
    tierId: p.text(),
    attendeeId: p.text(),
    /** The barcode secret. */
    code: p.text().unique('tickets_code_unique'),
    status: p.enum(TICKET_STATUSES),
    price: p.integer(),
    currency: p.text(),
    checkedInAt: p.datetime().nullable(),
    voidedAt: p.datetime().nullable(),
  },
});
export class Ticket extends TicketSchema.class {}
TicketSchema.setClass(Ticket);
