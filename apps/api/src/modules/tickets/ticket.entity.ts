import { defineEntity, p } from '@mikro-orm/core';
import type { TicketStatus } from '@boxoffice/contract';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const TicketSchema = defineEntity({
  name: 'Ticket',
  tableName: 'tickets',
  extends: BaseEntity,
  properties: {
    id: primaryId('ticket'),
    organisationId: p.text(),
    orderId: p.text(),
    eventId: p.text(),
    tierId: p.text(),
    attendeeId: p.text(),
    /** The barcode secret. */
    code: p.text(),
    status: p.text().$type<TicketStatus>(),
    price: p.integer(),
    currency: p.text(),
    checkedInAt: p.datetime().nullable(),
    voidedAt: p.datetime().nullable(),
  },
});
export class Ticket extends TicketSchema.class {}
TicketSchema.setClass(Ticket);
