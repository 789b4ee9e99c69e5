import { exec, statement, type Runner } from '../../db/driver';

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

/** Marks the twin seeded, unless it already was: true for the one caller that gets to seed it. */
const CLAIM_SEEDING = statement<{ id: string }, { id: string; at: Date }>(
  `update organisations set test_data_seeded_at = $2
    where id = $1 and live_organisation_id is not null and test_data_seeded_at is null
   returning id`,
  (v) => [v.id, v.at],
);

const MARK_SEEDED = statement<never, { id: string; at: Date }>(
  `update organisations set test_data_seeded_at = $2 where id = $1`,
  (v) => [v.id, v.at],
);

const UNCLAIM_SEEDING = statement<never, { id: string }>(
  `update organisations set test_data_seeded_at = null where id = $1`,
  (v) => [v.id],
);

export async function insertTwin(
  on: Runner,
  values: { id: string; liveOrganisationId: string; at: Date },
): Promise<void> {
  await exec(on, INSERT_TWIN, values);
}

/** The live organisation's test environment, or null if it has none (yet). */
export async function findTwin(on: Runner, liveOrganisationId: string): Promise<TwinRow | null> {
  const [row] = await exec(on, TWIN_OF, { liveOrganisationId });
  return row ?? null;
}

export async function claimSeeding(on: Runner, id: string, at: Date): Promise<boolean> {
  return (await exec(on, CLAIM_SEEDING, { id, at })).length > 0;
}

export async function unclaimSeeding(on: Runner, id: string): Promise<void> {
  await exec(on, UNCLAIM_SEEDING, { id });
}

/** Marks the twin seeded, whether it was or not (its reset seeds it again). */
export async function markSeeded(on: Runner, id: string, at: Date): Promise<void> {
  await exec(on, MARK_SEEDED, { id, at });
}
