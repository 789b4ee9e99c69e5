import { exec, statement, type Runner } from '../../db/driver';

/** A change record to append: its type, and the object as the API renders it (with its `id`). */
export interface NewRecord {
  type: string;
  object: { id: string };
}

interface NewRecords {
  organisationId: string;
  records: readonly NewRecord[];
  at: Date;
}

/**
 * Appends records in their order (`position` follows the list's order). The list goes as one JSON
 * parameter, each object serialised once inside it; PostgreSQL reads it back as rows.
 */
const INSERT_RECORDS = statement<never, NewRecords>(
  `insert into change_records (organisation_id, type, object_id, data, created_at)
   select $1, r.type, r.object ->> 'id', r.object, $3
     from rows from (json_to_recordset($2::json) as (type text, object jsonb))
          with ordinality as r(type, object, n)
    order by r.n`,
  (v) => [v.organisationId, JSON.stringify(v.records), v.at],
);

const PURGE_BEFORE = statement<{ purged: string }, { before: Date }>(
  `with purged as (delete from change_records where created_at < $1 returning 1)
   select count(*) as purged from purged`,
  (v) => [v.before],
);

const DELETE_OF_ORGANISATION = statement<never, { organisationId: string }>(
  `delete from change_records where organisation_id = $1`,
  (v) => [v.organisationId],
);

export async function insertRecords(on: Runner, records: NewRecords): Promise<void> {
  await exec(on, INSERT_RECORDS, records);
}

/** Deletes the records made before `before`; how many. */
export async function purgeRecords(on: Runner, before: Date): Promise<number> {
  const [row] = await exec(on, PURGE_BEFORE, { before });
  return Number(row?.purged ?? 0);
}

/** Deletes every record of the organisation's (a test environment's reset). */
export async function deleteOrganisationRecords(on: Runner, organisationId: string): Promise<void> {
  await exec(on, DELETE_OF_ORGANISATION, { organisationId });
}
