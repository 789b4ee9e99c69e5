import type { TenantContext } from '../../core/context';
import { run } from '../../db/sql';

/** The resources whose every create and update is recorded. */
export const CHANGED_OBJECTS = [
  'event',
  'tier',
  'order',
  'ticket',
  'attendee',
  'checkin',
  'payout',
] as const;
export type ChangedObject = (typeof CHANGED_OBJECTS)[number];
export type ChangeType = `${ChangedObject}.${'created' | 'updated'}`;

/** One change: its type and the object as the API renders it after the change. */
export interface Change {
  type: ChangeType;
  object: { id: string };
}

/** Change records are kept this long, then purged (`purgeChanges`). */
export const CHANGE_RETENTION_DAYS = 30;

/**
 * Appends change records, in order, to the transaction of the changes themselves: they commit
 * together or not at all. Every write to the resources above goes through here, whoever makes it
 * (the API, the dashboard, the operator CLI, the demo data).
 */
export async function recordChanges(ctx: TenantContext, changes: readonly Change[]): Promise<void> {
  if (changes.length === 0) return;
  if (!ctx.em.isInTransaction()) {
    throw new Error('change records must be written in the transaction of their change');
  }
  const params = changes.flatMap((change) => [
    ctx.organisationId,
    change.type,
    change.object.id,
    JSON.stringify(change.object),
  ]);
  await run(ctx.em, {
    text: insertText(changes.length),
    params,
  });
}

/** Inserts of up to this many change records are built once and kept; larger ones at each call. */
const KEPT_INSERTS = 16;
const insertTexts: string[] = [];

/** The insert of `count` change records (see `fixedText`, db/rows.ts, for why texts are kept). */
function insertText(count: number): string {
  const kept = insertTexts[count];
  if (kept !== undefined) return kept;
  const text = `insert into change_records (organisation_id, type, object_id, data)
     values ${Array.from({ length: count }, () => '(?, ?, ?, ?::jsonb)').join(', ')}`;
  if (count <= KEPT_INSERTS) insertTexts[count] = text;
  return text;
}

/** Deletes change records past their retention; returns how many. */
export async function purgeChanges(em: TenantContext['em']): Promise<number> {
  const [row] = await run<{ purged: string }>(em, {
    text: `with purged as (
       delete from change_records where created_at < now() - make_interval(days => ?) returning 1
     )
     select count(*) as purged from purged`,
    params: [CHANGE_RETENTION_DAYS],
  });
  return Number(row?.purged ?? 0);
}
