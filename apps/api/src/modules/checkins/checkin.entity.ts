import { p } from '@mikro-orm/core';
import { CHECKIN_DIRECTIONS } from '@boxoffice/contract';
import { defineTenantEntity } from '../../db/base.entity';

export const CheckinSchema = defineTenantEntity({
  name: 'Checkin',
  tableName: 'checkins',
  idKind: 'checkin',
  // Listed by when the server received them (`since`); a check-in never changes.
  listedBy: ['created'],
  properties: {
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
