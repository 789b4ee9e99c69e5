import type { Pool } from 'pg';
import {
  copyLine,
  exec,
  execCopy,
  execOne,
  execText,
  execUnprepared,
  onConnection,
  statement,
  type Runner,
} from '../../db/driver';

/**
 * Every statement on `request_logs` and its partitions: the writer's batch insert, the Logs page's
 * list and record, the usage charts, and the partitions' upkeep.
 */

/** A request as recorded: the row's columns. */
export interface RequestLogRow {
  id: string;
  created_at: Date;
  organisation_id: string;
  livemode: boolean;
  api_key_id: string | null;
  key_hint: string | null;
  method: string;
  route: string;
  path: string;
  status: number;
  error_code: string | null;
  duration_ms: number;
  request_id: string;
  idempotency_key: string | null;
  idempotent_replayed: boolean;
  client_address: string | null;
  user_agent: string | null;
  sdk_name: string | null;
  sdk_version: string | null;
  response_bytes: number | null;
  request_body: string | null;
  request_body_truncated: boolean;
  request_body_omitted: string | null;
  error_body: string | null;
  error_body_truncated: boolean;
}

/** Every column of a row, once each, in the order of the batch insert's lines. */
const COLUMN_NAMES = Object.keys({
  id: 1,
  created_at: 1,
  organisation_id: 1,
  livemode: 1,
  api_key_id: 1,
  key_hint: 1,
  method: 1,
  route: 1,
  path: 1,
  status: 1,
  error_code: 1,
  duration_ms: 1,
  request_id: 1,
  idempotency_key: 1,
  idempotent_replayed: 1,
  client_address: 1,
  user_agent: 1,
  sdk_name: 1,
  sdk_version: 1,
  response_bytes: 1,
  request_body: 1,
  request_body_truncated: 1,
  request_body_omitted: 1,
  error_body: 1,
  error_body_truncated: 1,
} satisfies Record<keyof RequestLogRow, 1>) as (keyof RequestLogRow)[];

const COLUMNS = COLUMN_NAMES.join(', ');

/** The columns the list shows (no bodies). */
const SUMMARY_COLUMNS = `id, created_at, livemode, api_key_id, key_hint, method, route, path,
  status, error_code, duration_ms, request_id, idempotency_key, idempotent_replayed, sdk_name,
  sdk_version`;

/**
 * A batch of records in one COPY: PostgreSQL's bulk path reads plain lines, with no statement to
 * parse and no JSON document to take apart (about half the database's CPU a record of an INSERT
 * from a JSON array). A row for a day without its partition goes to the default partition.
 */
const COPY = `copy request_logs (${COLUMNS}) from stdin`;

/** A record as a line of the batch insert. */
export const requestLogLine = (row: RequestLogRow): string =>
  copyLine(COLUMN_NAMES.map((name) => row[name]));

/** Writes the records of `lines` (`requestLogLine`s, one after another). */
export async function insertRequestLogs(on: Runner, lines: Buffer | string): Promise<void> {
  await execCopy(on, COPY, lines);
}

export type RequestLogSummaryRow = Omit<
  RequestLogRow,
  | 'organisation_id'
  | 'client_address'
  | 'user_agent'
  | 'response_bytes'
  | 'request_body'
  | 'request_body_truncated'
  | 'request_body_omitted'
  | 'error_body'
  | 'error_body_truncated'
>;

export interface RequestLogFilters {
  /** The lowest and highest status wanted (a class, or one status as both). */
  statusFrom?: number;
  statusTo?: number;
  apiKeyId?: string;
  method?: string;
  route?: string;
  requestId?: string;
  /** Only records at or after this moment. */
  since?: Date;
}

/** A page of records: those that pass `filters`, after `after` (the last of the previous page). */
export interface RequestLogPage {
  filters: RequestLogFilters;
  after?: { createdAt: Date; id: string } | undefined;
  limit: number;
}

/**
 * A page of an organisation's records, newest first; `full`: every column, bodies included. The
 * text depends on which filters are used, not on their values; it walks
 * `request_logs_org_created_index` in every partition.
 */
export async function listRequestLogs(
  on: Runner,
  organisationId: string,
  page: RequestLogPage,
): Promise<RequestLogSummaryRow[]>;
export async function listRequestLogs(
  on: Runner,
  organisationId: string,
  page: RequestLogPage,
  full: true,
): Promise<RequestLogRow[]>;
export async function listRequestLogs(
  on: Runner,
  organisationId: string,
  { filters, after, limit }: RequestLogPage,
  full = false,
): Promise<RequestLogSummaryRow[]> {
  const values: unknown[] = [organisationId];
  const where = ['organisation_id = $1'];
  const add = (condition: (placeholder: string) => string, value: unknown) => {
    values.push(value);
    where.push(condition(`$${values.length}`));
  };
  if (filters.statusFrom !== undefined) add((p) => `status >= ${p}`, filters.statusFrom);
  if (filters.statusTo !== undefined) add((p) => `status <= ${p}`, filters.statusTo);
  if (filters.apiKeyId !== undefined) add((p) => `api_key_id = ${p}`, filters.apiKeyId);
  if (filters.method !== undefined) add((p) => `method = ${p}`, filters.method);
  if (filters.route !== undefined) add((p) => `route = ${p}`, filters.route);
  if (filters.requestId !== undefined) add((p) => `request_id = ${p}`, filters.requestId);
  if (filters.since !== undefined) add((p) => `created_at >= ${p}`, filters.since);
  if (after) {
    values.push(after.createdAt, after.id);
    where.push(`(created_at, id) < ($${values.length - 1}, $${values.length})`);
  }
  values.push(limit);
  return execText<RequestLogSummaryRow>(
    on,
    `select ${full ? COLUMNS : SUMMARY_COLUMNS} from request_logs
      where ${where.join(' and ')}
      order by created_at desc, id desc
      limit $${values.length}`,
    values,
  );
}

const GET = statement<RequestLogRow, { organisationId: string; id: string }>(
  `select ${COLUMNS} from request_logs where organisation_id = $1 and id = $2`,
  (v) => [v.organisationId, v.id],
);

/** One record of the organisation's; null if it has none with this id. */
export async function findRequestLog(
  on: Runner,
  organisationId: string,
  id: string,
): Promise<RequestLogRow | null> {
  return execOne(on, GET, { organisationId, id });
}

/** A usage bucket as the database sums it up. */
export interface UsageRow {
  start: Date;
  requests: number;
  requests_2xx: number;
  requests_4xx: number;
  requests_5xx: number;
  rate_limited: number;
  p50_ms: number | null;
  p99_ms: number | null;
}

const USAGE = statement<
  UsageRow,
  { organisationId: string; from: Date; to: Date; bucketSeconds: number; apiKeyId: string | null }
>(
  `select date_bin(make_interval(secs => $4), created_at, $2::timestamptz) as start,
          count(*)::int as requests,
          (count(*) filter (where status between 200 and 299))::int as requests_2xx,
          (count(*) filter (where status between 400 and 499))::int as requests_4xx,
          (count(*) filter (where status between 500 and 599))::int as requests_5xx,
          (count(*) filter (where status = 429))::int as rate_limited,
          percentile_cont(0.5) within group (order by duration_ms) as p50_ms,
          percentile_cont(0.99) within group (order by duration_ms) as p99_ms
     from request_logs
    where organisation_id = $1 and created_at >= $2 and created_at < $3
      and ($5::text is null or api_key_id = $5)
    group by 1
    order by 1`,
  (v) => [v.organisationId, v.from, v.to, v.bucketSeconds, v.apiKeyId],
);

/** The organisation's requests in [from, to), per bucket of `bucketSeconds` from `from`. */
export function usageBuckets(
  on: Runner,
  values: {
    organisationId: string;
    from: Date;
    to: Date;
    bucketSeconds: number;
    apiKeyId: string | null;
  },
): Promise<UsageRow[]> {
  return exec(on, USAGE, values);
}

const REQUESTS_PER_KEY = statement<
  { api_key_id: string; requests: number },
  { organisationId: string; since: Date }
>(
  `select api_key_id, count(*)::int as requests
     from request_logs
    where organisation_id = $1 and created_at >= $2 and api_key_id is not null
    group by api_key_id`,
  (v) => [v.organisationId, v.since],
);

/** The organisation's requests since `since`, per key. */
export async function requestsPerKey(
  on: Runner,
  organisationId: string,
  since: Date,
): Promise<Map<string, number>> {
  const rows = await exec(on, REQUESTS_PER_KEY, { organisationId, since });
  return new Map(rows.map((row) => [row.api_key_id, row.requests]));
}

// --- Partitions -------------------------------------------------------------------------------

/** The name of a day's partition: `request_logs_20261208`. */
export const partitionName = (day: string): string => `request_logs_${day.replaceAll('-', '')}`;

const DEFAULT_PARTITION = 'request_logs_default';
/** Only one process maintains the partitions at a time; the others skip the round. */
const MAINTENANCE_LOCK = `select pg_try_advisory_xact_lock(hashtext('request_logs_maintenance')) as locked`;

const PARTITIONS = `select c.relname as name
  from pg_inherits i join pg_class c on c.oid = i.inhrelid
 where i.inhparent = 'request_logs'::regclass and c.relname <> '${DEFAULT_PARTITION}'`;

const DEFAULT_DAYS = `select distinct to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day
  from ${DEFAULT_PARTITION}`;

/** The day (`2026-12-08`) of a partition's name; undefined for a name not of a day's partition. */
const dayOfPartition = (name: string): string | undefined => {
  const match = /^request_logs_(\d{4})(\d{2})(\d{2})$/.exec(name);
  return match ? `${match[1]}-${match[2]}-${match[3]}` : undefined;
};

const nextDay = (day: string): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

export interface PartitionChanges {
  /** Days whose partition this round made (`2026-12-08`), oldest first. */
  created: string[];
  /** Days whose partition this round dropped, oldest first. */
  dropped: string[];
  /** Records found in the default partition and moved into their day's partition. */
  moved: number;
  /** False when another process was maintaining the partitions: this round did nothing. */
  ran: boolean;
}

/**
 * One round of upkeep, in one transaction under an advisory lock (two replicas never run it at
 * once: the second skips): records in the default partition move into their day's partition
 * (made for them), the partitions of `ahead` are made if missing, and those of days before
 * `keepFrom` are dropped whole. DDL waits at most `lockTimeoutMs` for a lock (a long report on the
 * table), after which the round fails and the next one tries again.
 */
export async function maintainPartitions(
  pool: Pool,
  plan: { ahead: string[]; keepFrom: string; lockTimeoutMs: number },
): Promise<PartitionChanges> {
  return onConnection(pool, async (client) => {
    const [lock] = await execUnprepared<{ locked: boolean }>(client, MAINTENANCE_LOCK);
    if (!lock?.locked) return { created: [], dropped: [], moved: 0, ran: false };
    await execUnprepared(client, `set local lock_timeout = ${Math.max(1, plan.lockTimeoutMs)}`);
    const existing = new Set(
      (await execUnprepared<{ name: string }>(client, PARTITIONS)).flatMap(
        (row) => dayOfPartition(row.name) ?? [],
      ),
    );
    const created: string[] = [];
    let moved = 0;

    // Strays first: a day's partition cannot be attached while the default one holds its rows.
    const strays = (await execUnprepared<{ day: string }>(client, DEFAULT_DAYS)).map((r) => r.day);
    for (const day of strays.sort()) {
      const name = partitionName(day);
      const bounds = [`${day}T00:00:00Z`, `${nextDay(day)}T00:00:00Z`];
      // (A day with a partition never has rows in the default one: they go to its partition.)
      await execUnprepared(
        client,
        `create table "${name}" (like request_logs including defaults including constraints)`,
      );
      const rows = await execUnprepared<{ n: number }>(
        client,
        `with gone as (
           delete from ${DEFAULT_PARTITION} where created_at >= $1 and created_at < $2 returning *
         ), put as (insert into "${name}" select * from gone returning 1)
         select count(*)::int as n from put`,
        bounds,
      );
      moved += rows[0]?.n ?? 0;
      await execUnprepared(
        client,
        `alter table request_logs attach partition "${name}" for values from ('${bounds[0]}') to ('${bounds[1]}')`,
      );
      created.push(day);
      existing.add(day);
    }

    for (const day of plan.ahead) {
      if (existing.has(day)) continue;
      await execUnprepared(
        client,
        `create table if not exists "${partitionName(day)}" partition of request_logs
           for values from ('${day}T00:00:00Z') to ('${nextDay(day)}T00:00:00Z')`,
      );
      created.push(day);
      existing.add(day);
    }

    const dropped = [...existing].filter((day) => day < plan.keepFrom).sort();
    for (const day of dropped) {
      await execUnprepared(client, `drop table "${partitionName(day)}"`);
    }
    return { created: created.sort(), dropped, moved, ran: true };
  });
}

/** The days that have a partition (`2026-12-08`), oldest first. */
export async function partitionDays(on: Runner): Promise<string[]> {
  const rows = await execUnprepared<{ name: string }>(on, PARTITIONS);
  return rows.flatMap((row) => dayOfPartition(row.name) ?? []).sort();
}
