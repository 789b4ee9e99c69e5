import { defineEntity, p } from '@mikro-orm/core';
import type { CheckinDirection } from '@boxoffice/contract';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const CheckinSchema = defineEntity({
  name: 'Checkin',
  tableName: 'checkins',
  extends: BaseEntity,
  properties: {
    id: primaryId('checkin'),
    organisationId: p.text(),
    eventId: p.text(),
    ticketId: p.text(),
    attendeeId: p.text(),
    apiKeyId: p.text().nullable(),
    direction: p.text().$type<CheckinDirection>(),
    gate: p.text().nullable(),
    deviceId: p.text().nullable(),
    scannedAt: p.datetime(),
  },
});
export class Checkin extends CheckinSchema.class {}
CheckinSchema.setClass(Checkin);
