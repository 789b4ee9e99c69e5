import { exec, execOne, statement, type Runner } from '../../db/driver';

/**
 * Makes the test environment of a live organisation, unless it has one: a row of its own, named as
 * the live one, empty. Two callers at once are kept to one twin by the unique index on
 * `live_organisation_id` (the second one's insert waits for the first and does nothing). Nothing is
 * made for an organisation that is itself a twin, or does not exist.
 */
const INSERT_TWIN = statement<never, { id: string; liveOrganisationId: string; at: Date }>(
  `insert into organisations (id, name, plan, live_organisation_id, created_at, updated_at)
   select $1, o.name, 'free', o.id, $3, $3
     from organisations o
    where o.id = $2 and o.live_organisation_id is null
   on conflict (live_organisation_id) do nothing`,
  (v) => [v.id, v.liveOrganisationId, v.at],
);

export interface TwinRow {
  id: string;
  test_data_seeded_at: Date | null;
}

const TWIN_OF = statement<TwinRow, { liveOrganisationId: string }>(
  `select id, test_data_seeded_at from organisations where live_organisation_id = $1`,
  (v) => [v.liveOrganisationId],
);

/**
 * Takes the twin's sample-data lease until `until`, unless another holds it (its lease not yet
 * past at `at`); with `unseeded`, only while the twin has no sample data yet. The row if taken.
 */
const TAKE_LEASE = statement<
  { id: string },
  { id: string; until: Date; at: Date; unseeded: boolean }
>(
  `update organisations set test_data_busy_until = $2
    where id = $1 and live_organisation_id is not null
      and (test_data_busy_until is null or test_data_busy_until < $3)
      and (not $4::boolean or test_data_seeded_at is null)
   returning id`,
  (v) => [v.id, v.until, v.at, v.unseeded],
);

/** Ends the lease: the twin has its sample data (made at `seededAt`), or, with null, has none. */
const END_LEASE = statement<never, { id: string; seededAt: Date | null }>(
  `update organisations set test_data_seeded_at = $2, test_data_busy_until = null where id = $1`,
  (v) => [v.id, v.seededAt],
);

export async function insertTwin(
  on: Runner,
  values: { id: string; liveOrganisationId: string; at: Date },
): Promise<void> {
  await exec(on, INSERT_TWIN, values);
}

/** The live organisation's test environment, or null if it has none (yet). */
export async function findTwin(on: Runner, liveOrganisationId: string): Promise<TwinRow | null> {
  return execOne(on, TWIN_OF, { liveOrganisationId });
}

/** Whether the lease was taken (see TAKE_LEASE). */
export async function takeLease(
  on: Runner,
  values: { id: string; until: Date; at: Date; unseeded: boolean },
): Promise<boolean> {
  return (await exec(on, TAKE_LEASE, values)).length > 0;
}

export async function endLease(on: Runner, id: string, seededAt: Date | null): Promise<void> {
  await exec(on, END_LEASE, { id, seededAt });
}
