import { exec, statement, type Runner } from '../../db/driver';

/**
 * Every statement on `webhook_endpoints`: the services' reads and writes, and the engine's (which
 * endpoints take which change records, their state at delivery, their health after attempts).
 */

/**
 * A row of `webhook_endpoints`. Its secrets are stored sealed (core/secret-box.ts), or in plain
 * text if written before encryption and not yet re-encrypted (`whsec_…`); the services open them
 * where they show one, the engine where it signs.
 */
export interface EndpointRow {
  id: string;
  organisation_id: string;
  url: string;
  description: string | null;
  events: string[];
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, organisation_id, url, description, events, status, disabled_reason, secret,
  previous_secret, previous_secret_expires_at, failing_since, created_at, updated_at`;

type ById = { id: string; organisationId: string };

const LIST = statement<EndpointRow, { organisationId: string; limit: number; offset: number }>(
  `select ${COLUMNS} from webhook_endpoints where organisation_id = $1
    order by created_at, id limit $2 offset $3`,
  (v) => [v.organisationId, v.limit, v.offset],
);

const COUNT = statement<{ n: string }, { organisationId: string }>(
  `select count(*) as n from webhook_endpoints where organisation_id = $1`,
  (v) => [v.organisationId],
);

const FIND = statement<EndpointRow, ById>(
  `select ${COLUMNS} from webhook_endpoints where id = $1 and organisation_id = $2`,
  (v) => [v.id, v.organisationId],
);

const LOCK = statement<EndpointRow, ById>(
  `select ${COLUMNS} from webhook_endpoints where id = $1 and organisation_id = $2 for update`,
  (v) => [v.id, v.organisationId],
);

/** Held until the transaction ends: a deletion waits for it. */
const HOLD = statement<{ id: string }, ById>(
  `select id from webhook_endpoints where id = $1 and organisation_id = $2 for key share`,
  (v) => [v.id, v.organisationId],
);

const ORGANISATION = statement<{ organisation_id: string }, { id: string }>(
  `select organisation_id from webhook_endpoints where id = $1`,
  (v) => [v.id],
);

export interface NewEndpoint {
  id: string;
  organisationId: string;
  url: string;
  description: string | null;
  events: string[];
  secret: string;
  at: Date;
}

const INSERT = statement<EndpointRow, NewEndpoint>(
  `insert into webhook_endpoints (id, organisation_id, url, description, events, secret,
                                  created_at, updated_at)
   values ($1, $2, $3, $4, $5::text[], $6, $7, $7) returning ${COLUMNS}`,
  (v) => [v.id, v.organisationId, v.url, v.description, v.events, v.secret, v.at],
);

export type EndpointChange = Pick<
  EndpointRow,
  'id' | 'url' | 'events' | 'description' | 'status' | 'disabled_reason' | 'failing_since'
> & { at: Date };

const UPDATE = statement<EndpointRow, EndpointChange>(
  `update webhook_endpoints set url = $2, events = $3::text[], description = $4, status = $5,
     disabled_reason = $6, failing_since = $7, updated_at = $8
   where id = $1 returning ${COLUMNS}`,
  (v) => [v.id, v.url, v.events, v.description, v.status, v.disabled_reason, v.failing_since, v.at],
);

const ROTATE = statement<EndpointRow, { id: string; secret: string; until: Date; at: Date }>(
  `update webhook_endpoints set previous_secret = secret, secret = $2,
     previous_secret_expires_at = $3, updated_at = $4
   where id = $1 returning ${COLUMNS}`,
  (v) => [v.id, v.secret, v.until, v.at],
);

const DELETE = statement<{ id: string }, ById>(
  `delete from webhook_endpoints where id = $1 and organisation_id = $2 returning id`,
  (v) => [v.id, v.organisationId],
);

/** The row a write returned (the statement writes one, or throws). */
function written(rows: EndpointRow[]): EndpointRow {
  const [row] = rows;
  if (!row) throw new Error('webhook endpoint not written');
  return row;
}

export const listEndpoints = (
  on: Runner,
  organisationId: string,
  page: { limit: number; offset: number },
) => exec(on, LIST, { organisationId, ...page });

export const countEndpoints = async (on: Runner, organisationId: string) =>
  Number((await exec(on, COUNT, { organisationId }))[0]?.n ?? 0);

/** The organisation's endpoint; locked (`for update`) until the transaction ends if `lock`. */
export const findEndpoint = async (on: Runner, by: ById, lock = false) =>
  (await exec(on, lock ? LOCK : FIND, by))[0] ?? null;

/** Whether the endpoint is there, held (`for key share`) until the transaction ends if so. */
export const holdEndpoint = async (on: Runner, by: ById) => (await exec(on, HOLD, by)).length > 0;

export const endpointOrganisationId = async (on: Runner, id: string) =>
  (await exec(on, ORGANISATION, { id }))[0]?.organisation_id ?? null;

export const insertEndpoint = async (on: Runner, endpoint: NewEndpoint) =>
  written(await exec(on, INSERT, endpoint));

/** Writes the endpoint's settings (its row locked by the caller). */
export const updateEndpoint = async (on: Runner, change: EndpointChange) =>
  written(await exec(on, UPDATE, change));

/** A new secret; the current one becomes the previous one, signing beside it `until` then. */
export const rotateEndpointSecret = async (
  on: Runner,
  rotation: { id: string; secret: string; until: Date; at: Date },
) => written(await exec(on, ROTATE, rotation));

/** Whether there was such an endpoint to delete. */
export const deleteEndpointRow = async (on: Runner, by: ById) =>
  (await exec(on, DELETE, by)).length > 0;

/**
 * Endpoint `e` takes change record `c`: an enabled endpoint of its organisation, subscribed to its
 * type, and registered before the change was made.
 */
const TAKES = `e.organisation_id = c.organisation_id and e.status = 'enabled'
  and (e.events @> array['*'] or e.events @> array[c.type]) and e.created_at <= c.created_at`;

/** A place in the change records' order of (transaction id, position). */
export interface RecordPlace {
  tx: string;
  pos: string;
}

/**
 * A record (`pos`: its position; `data`: its object as JSON text, null if purged meanwhile) and an
 * endpoint that takes it: what its message needs.
 */
export interface MatchedRecord {
  pos: string;
  data: string | null;
  /** The object's `livemode`, for the message's envelope (true when it has none: older records). */
  livemode: boolean;
  organisation_id: string;
  type: string;
  created_at: Date;
  endpoint_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
}

/**
 * A row of a batch: its size and last place, and, unless the batch matched no endpoint, one record
 * with one endpoint that takes it.
 */
export type BatchRow = { read: number; last_tx: string | null; last_pos: string | null } & (
  { pos: null } | MatchedRecord
);

const MATCHED = `e.id as endpoint_id, e.url, e.secret, e.previous_secret,
  e.previous_secret_expires_at, e.failing_since`;

/**
 * The next `limit` change records after `after`, of transactions older than the oldest still
 * running (none can later appear before them), matched with the endpoints that take them, which
 * stay held until the transaction ends (deleting one waits, then deletes its messages). Records no
 * endpoint takes are counted in PostgreSQL and not sent: such a batch is one row.
 */
const MATCH_BATCH = statement<BatchRow, { after: RecordPlace; limit: number }>(
  `with batch as (
     select position, transaction_id, organisation_id, type, created_at from change_records
      where (transaction_id, position) > ($1::xid8, $2::bigint)
        and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
      order by transaction_id, position
      limit $3
   ),
   summary as (
     select count(*)::int as read,
            (array_agg(transaction_id::text order by transaction_id desc, position desc))[1] as tx,
            (array_agg(position::text order by transaction_id desc, position desc))[1] as pos
       from batch
   ),
   matched as (
     select c.transaction_id, c.position, c.organisation_id, c.type, c.created_at, ${MATCHED}
       from batch c join webhook_endpoints e on ${TAKES}
     for key share of e
   )
   select r.read, r.tx as last_tx, r.pos as last_pos, m.position::text as pos,
          m.organisation_id, m.type, m.created_at, m.endpoint_id, m.url, m.secret,
          m.previous_secret, m.previous_secret_expires_at, m.failing_since,
          c.data::text as data, (c.data -> 'livemode') is distinct from 'false'::jsonb as livemode
     from summary r left join matched m on true
     left join change_records c on c.position = m.position
    order by m.transaction_id, m.position, m.endpoint_id`,
  (v) => [v.after.tx, v.after.pos, v.limit],
);

/** The records of (`after`, `through`] matched as MATCH_BATCH matches them (a lease's batch). */
const MATCH_RANGE = statement<MatchedRecord, { after: RecordPlace; through: RecordPlace }>(
  `select c.position::text as pos, c.organisation_id, c.type, c.created_at, ${MATCHED},
          c.data::text as data, (c.data -> 'livemode') is distinct from 'false'::jsonb as livemode
     from change_records c join webhook_endpoints e on ${TAKES}
    where (c.transaction_id, c.position) > ($1::xid8, $2::bigint)
      and (c.transaction_id, c.position) <= ($3::xid8, $4::bigint)
    order by c.transaction_id, c.position, e.id
    for key share of e`,
  (v) => [v.after.tx, v.after.pos, v.through.tx, v.through.pos],
);

/** An endpoint as a delivery from the queue needs it. */
export type EndpointToSend = Pick<
  EndpointRow,
  'id' | 'url' | 'status' | 'secret' | 'previous_secret' | 'previous_secret_expires_at'
>;

const TO_SEND = statement<EndpointToSend, { ids: string[] }>(
  `select id, url, status, secret, previous_secret, previous_secret_expires_at
     from webhook_endpoints where id = any($1::text[])`,
  (v) => [v.ids],
);

/** Endpoints' health after attempts, at `at` (the transaction's clock). */
export interface Health {
  /** Endpoints to hold (`for key share`) until the transaction ends. */
  held: string[];
  /** Reached by an attempt: no longer failing. */
  healthy: string[];
  /** Every attempt failed: failing since `at` if they were not, disabled past `disableAfterHours`. */
  failing: string[];
  disableAfterHours: number;
  at: Date;
}

const EXPIRED = `failing_since < $5::timestamptz - make_interval(hours => $4::int)`;
const HEALTH = statement<{ id: string }, Health>(
  `with held as (
     select id from webhook_endpoints where id = any($1::text[]) for key share
   ),
   healthy as (
     update webhook_endpoints set failing_since = null
      where id = any($2::text[]) and failing_since is not null
   ),
   failing as (
     update webhook_endpoints
        set failing_since = coalesce(failing_since, $5::timestamptz),
            status = case when ${EXPIRED} then 'disabled' else status end,
            disabled_reason = case when ${EXPIRED}
              then 'every delivery failed for ' || $4::int || ' hours' else disabled_reason end,
            updated_at = case when ${EXPIRED} then $5::timestamptz else updated_at end
      where id = any($3::text[]) and status = 'enabled'
   )
   select id from held`,
  (v) => [v.held, v.healthy, v.failing, v.disableAfterHours, v.at],
);

export const matchBatch = (on: Runner, after: RecordPlace, limit: number): Promise<BatchRow[]> =>
  exec(on, MATCH_BATCH, { after, limit });

export const matchRange = (
  on: Runner,
  after: RecordPlace,
  through: RecordPlace,
): Promise<MatchedRecord[]> => exec(on, MATCH_RANGE, { after, through });

export const endpointsToSend = (on: Runner, ids: string[]): Promise<EndpointToSend[]> =>
  exec(on, TO_SEND, { ids });

/**
 * Records endpoints' health, and holds the `held` ones (first, so that the messages and attempts
 * written after it in the transaction belong to endpoints a deletion waits for); those still there.
 */
export async function recordHealth(on: Runner, health: Health): Promise<Set<string>> {
  return new Set((await exec(on, HEALTH, health)).map((row) => row.id));
}

/** The key id of a stored secret in `column`, null when it is not sealed. */
const keyOf = (column: string) =>
  `case when split_part(${column}, ':', 1) = 'v1' then split_part(${column}, ':', 2) end`;

/** An endpoint's stored secrets, for re-encryption. */
export type StoredSecrets = Pick<EndpointRow, 'id' | 'secret' | 'previous_secret'>;

/**
 * The next endpoints after `after` (in id order) with a secret that is not sealed under one of
 * the `keep` keys, locked until the transaction ends (a rotation of the secret waits for it).
 */
const TO_RESEAL = statement<StoredSecrets, { keep: string[]; after: string; limit: number }>(
  `select id, secret, previous_secret from webhook_endpoints
    where id > $2
      and (not coalesce(${keyOf('secret')} = any($1::text[]), false)
           or (previous_secret is not null
               and not coalesce(${keyOf('previous_secret')} = any($1::text[]), false)))
    order by id limit $3
    for update`,
  (v) => [v.keep, v.after, v.limit],
);

const RESEAL = statement<never, { rows: StoredSecrets[] }>(
  `update webhook_endpoints e set secret = v.secret, previous_secret = v.previous
     from unnest($1::text[], $2::text[], $3::text[]) as v(id, secret, previous)
    where e.id = v.id`,
  (v) => [
    v.rows.map((row) => row.id),
    v.rows.map((row) => row.secret),
    v.rows.map((row) => row.previous_secret),
  ],
);

export const secretsToReseal = (
  on: Runner,
  select: { keep: string[]; after: string; limit: number },
): Promise<StoredSecrets[]> => exec(on, TO_RESEAL, select);

/** Writes endpoints' secrets sealed anew (same secrets; their rows locked by the caller). */
export async function resealEndpointSecrets(on: Runner, rows: StoredSecrets[]): Promise<void> {
  if (rows.length > 0) await exec(on, RESEAL, { rows });
}
