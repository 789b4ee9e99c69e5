import { defineEntity, p } from '@mikro-orm/core';
import { CHECKIN_DIRECTIONS } from '@boxoffice/contract';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const CheckinSchema = defineEntity({
  name: 'Checkin',
  tableName: 'checkins',
  extends: BaseEntity,
  indexes: [
    { name: 'checkins_org_created_index', properties: ['organisationId', 'createdAt', 'id'] },
  ],
  properties: {
    id: primaryId('checkin'),
    organisationId: p.text(),
    eventId: p.text().index('checkins_event_id_index'),
    ticketId: p.text().index('checkins_ticket_id_index'),
    attendeeId: p.text(),
    apiKeyId: p.text().nullable(),
    direction: p.enum(CHECKIN_DIRECTIONS),
    gate: p.text().nullable(),
    deviceId: p.text().nullable(),
    scannedAt: p.datetime(),
  },
});
export class Checkin extends CheckinSchema.class {}
CheckinSchema.setClass(Checkin);
