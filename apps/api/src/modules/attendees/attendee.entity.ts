import { p } from '@mikro-orm/core';
import type { AttendeeAnswer } from '@boxoffice/contract';
import { defineTenantEntity } from '../../db/base.entity';

export const AttendeeSchema = defineTenantEntity({
  name: 'Attendee',
  tableName: 'attendees',
  idKind: 'attendee',
  properties: {
    ticketId: p.text().unique('attendees_ticket_id_unique'),
    orderId: p.text(),
    eventId: p.text().index('attendees_event_id_index'),
    firstName: p.text(),
    lastName: p.text(),
    email: p.text().nullable(),
    company: p.text().nullable(),
    answers: p.json<AttendeeAnswer[]>(),
    /** Mirrors the ticket's state; written in the same transaction as every check-in. */
    checkedIn: p.boolean().default(false),
  },
});
export class Attendee extends AttendeeSchema.class {}
AttendeeSchema.setClass(Attendee);
