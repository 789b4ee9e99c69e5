import { defineEntity, p } from '@mikro-orm/core';
import type { AttendeeAnswer } from '@boxoffice/contract';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const AttendeeSchema = defineEntity({
  name: 'Attendee',
  tableName: 'attendees',
  extends: BaseEntity,
  properties: {
    id: primaryId('attendee'),
    organisationId: p.text(),
    ticketId: p.text(),
    orderId: p.text(),
    eventId: p.text(),
    firstName: p.text(),
    lastName: p.text(),
    email: p.text().nullable(),
    company: p.text().nullable(),
    answers: p.json<AttendeeAnswer[]>(),
    /** Mirrors the ticket's state; written in the same transaction as every check-in. */
    checkedIn: p.boolean(),
  },
});
export class Attendee extends AttendeeSchema.class {}
AttendeeSchema.setClass(Attendee);
