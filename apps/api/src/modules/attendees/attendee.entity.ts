import { defineEntity, p } from '@mikro-orm/core';
import type { AttendeeAnswer } from '@boxoffice/contract';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const AttendeeSchema = defineEntity({
  name: 'Attendee',
  tableName: 'attendees',
  extends: BaseEntity,
  indexes: [
    { name: 'attendees_org_created_index', properties: ['organisationId', 'createdAt', 'id'] },
    { name: 'attendees_org_updated_index', properties: ['organisationId', 'updatedAt', 'id'] },
  ],
  properties: {
    id: primaryId('attendee'),
    organisationId: p.text(),
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
