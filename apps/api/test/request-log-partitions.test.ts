import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../src/db/orm';
import {
  insertRequestLogs,
  requestLogLine,
  partitionName,
  type RequestLogRow,
} from '../src/modules/request-logs/request-log.repository';
import {
  maintainRequestLogPartitions,
  requestLogPartitionDays,
} from '../src/modules/request-logs/request-log.service';
import { createMigratedDatabase, type MigratedDatabase } from './setup';

/**
 * The request log's partitions on a database of their own: made ahead, records of a day without a
 * partition kept (the default partition) and moved into theirs, old days dropped whole, never
 * deleted row by row; two replicas maintaining at once.
 */

let database: MigratedDatabase;
let orm: Orm;
beforeAll(async () => {
  database = await createMigratedDatabase('boxoffice_request_log_partitions');
  orm = database.orm;
});
afterAll(() => database.drop());

const DAY = 86_400_000;
const today = new Date(Math.floor(Date.now() / DAY) * DAY);
/** The UTC day `offset` days from today, `2026-12-08`. */
const day = (offset: number) => new Date(today.getTime() + offset * DAY).toISOString().slice(0, 10);

const sql = <T = Record<string, unknown>>(text: string, values: unknown[] = []) =>
  orm.em.fork().execute<T[]>(text, values);

let sequence = 0;
const row = (createdAt: Date): RequestLogRow => ({
  id: `req_partition_${(sequence += 1)}`,
  created_at: createdAt,
  organisation_id: 'org_partitions',
  livemode: true,
  api_key_id: null,
  key_hint: null,
  method: 'GET',
  route: '/events',
  path: '/events',
  status: 200,
  error_code: null,
  duration_ms: 1.5,
  request_id: `req_partition_${sequence}`,
  idempotency_key: null,
  idempotent_replayed: false,
  client_address: null,
  user_agent: null,
  sdk_name: null,
  sdk_version: null,
  response_bytes: 10,
  request_body: null,
  request_body_truncated: false,
  request_body_omitted: null,
  error_body: null,
  error_body_truncated: false,
});

/** Rows per partition (`request_logs_default` included), by table name. */
async function rowsPerPartition(): Promise<Record<string, number>> {
  const rows = await sql<{ name: string; n: number }>(
    `select tableoid::regclass::text as name, count(*)::int as n from request_logs group by 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.n]));
}

/** Makes a day's partition by hand, as an older server would have. */
const makePartition = (d: string) =>
  sql(
    `create table "${partitionName(d)}" partition of request_logs for values from ('${d}T00:00:00Z') to ('${day(
      Math.round((Date.parse(`${d}T00:00:00Z`) - today.getTime()) / DAY) + 1,
    )}T00:00:00Z')`,
  );

describe('request log partitions', () => {
  it('are made by the migration for today and the next two days', async () => {
    expect(await requestLogPartitionDays(orm.em)).toEqual([day(0), day(1), day(2)]);
  });

  it('keep a record for a day without a partition, then move it into one made for it', async () => {
    await insertRequestLogs(
      orm.em,
      requestLogLine(row(new Date(today.getTime() + 10 * DAY + 3600_000))),
    );
    expect(await rowsPerPartition()).toEqual({ request_logs_default: 1 });
    const changes = await maintainRequestLogPartitions(orm.em, { retentionDays: 14 });
    expect(changes).toMatchObject({ ran: true, moved: 1, created: [day(10)], dropped: [] });
    expect(await rowsPerPartition()).toEqual({ [partitionName(day(10))]: 1 });
  });

  it('drop the days past the retention whole, never deleting rows, and make the days ahead', async () => {
    for (const offset of [-20, -15, -14, -1]) {
      await makePartition(day(offset));
      await insertRequestLogs(
        orm.em,
        requestLogLine(row(new Date(Date.parse(`${day(offset)}T12:00:00Z`)))),
      );
    }
    // A row deleted from the old days' partitions would fail the maintenance.
    await sql(`create function refuse_delete() returns trigger language plpgsql as $$
      begin raise exception 'rows deleted from %', tg_table_name; end $$`);
    for (const offset of [-20, -15, -14]) {
      await sql(
        `create trigger no_delete before delete on "${partitionName(day(offset))}" for each row execute function refuse_delete()`,
      );
    }
    // Four days on: the next partitions are made, and two more days are past the retention.
    const now = new Date(today.getTime() + 4 * DAY + 60_000);
    const changes = await maintainRequestLogPartitions(orm.em, { retentionDays: 14, now });
    expect(changes).toMatchObject({
      ran: true,
      moved: 0,
      created: [day(4), day(5), day(6)],
      dropped: [day(-20), day(-15), day(-14)],
    });
    const days = await requestLogPartitionDays(orm.em);
    expect(days).toEqual([day(-1), day(0), day(1), day(2), day(4), day(5), day(6), day(10)]);
    expect(await rowsPerPartition()).toMatchObject({
      [partitionName(day(-1))]: 1,
      [partitionName(day(10))]: 1,
    });
    expect(Object.keys(await rowsPerPartition())).not.toContain(partitionName(day(-14)));
  });

  it('are maintained by one of two replicas at a time, the other skipping', async () => {
    const [one, two] = await Promise.all([
      maintainRequestLogPartitions(orm.em, { retentionDays: 14 }),
      maintainRequestLogPartitions(orm.em, { retentionDays: 14 }),
    ]);
    expect([one.ran, two.ran]).toContain(true);
    expect([...one.created, ...two.created]).toEqual([]);
    // Held by a third party (a long maintenance), the lock makes a round skip, not wait.
    const held = await orm.em.getConnection().getNativeClient();
    const client = await held.connect();
    try {
      await client.query('begin');
      await client.query(`select pg_advisory_xact_lock(hashtext('request_logs_maintenance'))`);
      const skipped = await maintainRequestLogPartitions(orm.em, { retentionDays: 14 });
      expect(skipped).toEqual({ ran: false, created: [], dropped: [], moved: 0 });
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});
