import { p } from '@mikro-orm/core';
import { TICKET_STATUSES } from '@boxoffice/contract';
import { defineTenantEntity } from '../../db/base.entity';

export const TicketSchema = defineTenantEntity({
  name: 'Ticket',
  tableName: 'tickets',
  idKind: 'ticket',
  properties: {
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
