import { exec, execOne, statement, type Runner } from '../../db/driver';
import type { Ticket } from './ticket.entity';

/** A ticket row as the entity's plain type. */
export type TicketRow = Pick<
  Ticket,
  | 'id'
  | 'organisationId'
  | 'orderId'
  | 'eventId'
  | 'tierId'
  | 'attendeeId'
  | 'code'
  | 'status'
  | 'price'
  | 'currency'
  | 'checkedInAt'
  | 'voidedAt'
  | 'createdAt'
  | 'updatedAt'
>;

const COLUMNS = `id, organisation_id as "organisationId", order_id as "orderId",
  event_id as "eventId", tier_id as "tierId", attendee_id as "attendeeId", code, status, price,
  currency, checked_in_at as "checkedInAt", voided_at as "voidedAt", created_at as "createdAt",
  updated_at as "updatedAt"`;

const LOCK_BY_ID = statement<TicketRow, { organisationId: string; id: string }>(
  `select ${COLUMNS} from tickets where organisation_id = $1 and id = $2 for update`,
  (v) => [v.organisationId, v.id],
);

const LOCK_BY_CODE = statement<TicketRow, { organisationId: string; code: string }>(
  `select ${COLUMNS} from tickets where organisation_id = $1 and code = $2 for update`,
  (v) => [v.organisationId, v.code],
);

/** The organisation's ticket with this id or barcode, locked (`FOR UPDATE`); null if none. */
export async function lockTicketRow(
  on: Runner,
  organisationId: string,
  by: { id: string } | { code: string },
): Promise<TicketRow | null> {
  return 'id' in by
    ? execOne(on, LOCK_BY_ID, { organisationId, id: by.id })
    : execOne(on, LOCK_BY_CODE, { organisationId, code: by.code });
}

/**
 * Locks the organisation's tickets with these ids or barcodes, in the order of their ids: two
 * writers that lock several tickets each in that one order never wait for each other in a circle
 * (the voiding of an order's tickets locks in it too).
 */
const LOCK_MANY = statement<never, { organisationId: string; ids: string[]; codes: string[] }>(
  `select 1 from tickets
    where organisation_id = $1 and (id = any($2::text[]) or code = any($3::text[]))
    order by id
    for update`,
  (v) => [v.organisationId, v.ids, v.codes],
);

export async function lockTicketRows(
  on: Runner,
  organisationId: string,
  by: { ids: string[]; codes: string[] },
): Promise<void> {
  if (by.ids.length + by.codes.length > 0) await exec(on, LOCK_MANY, { organisationId, ...by });
}
