import { exec, statement, type Runner } from '../../db/driver';

/** Change records to append: one element per record, in order, of each array. */
interface NewRecords {
  organisationId: string;
  types: string[];
  objectIds: string[];
  /** Each object as JSON text. */
  objects: string[];
  at: Date;
}

/** Appends records in their order (`position` follows the arrays' order). */
const INSERT_RECORDS = statement<never, NewRecords>(
  `insert into change_records (organisation_id, type, object_id, data, created_at)
   select $1, r.type, r.object_id, r.data::jsonb, $5
     from unnest($2::text[], $3::text[], $4::text[]) with ordinality as r(type, object_id, data, n)
    order by r.n`,
  (v) => [v.organisationId, v.types, v.objectIds, v.objects, v.at],
);

const PURGE_BEFORE = statement<{ purged: string }, { before: Date }>(
  `with purged as (delete from change_records where created_at < $1 returning 1)
   select count(*) as purged from purged`,
  (v) => [v.before],
);

export async function insertRecords(on: Runner, records: NewRecords): Promise<void> {
  await exec(on, INSERT_RECORDS, records);
}

/** Deletes the records made before `before`; how many. */
export async function purgeRecords(on: Runner, before: Date): Promise<number> {
  const [row] = await exec(on, PURGE_BEFORE, { before });
  return Number(row?.purged ?? 0);
}
