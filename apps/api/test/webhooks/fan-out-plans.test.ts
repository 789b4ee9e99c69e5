import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FANOUT_BATCH } from '../../src/modules/webhooks/fan-out';
import { enginePoolConfig } from '../../src/modules/webhooks/webhook-engine';
import { matchBatch } from '../../src/modules/webhooks/webhook-endpoint.repository';
import { createMigratedDatabase, type MigratedDatabase } from '../setup';

// The fan-out reads the next batch of change records several times a second, from a table that
// starts empty and grows by millions. Its statement is prepared: planned for an empty table and
// kept, it would read the whole table each round (a sequential scan) until the next ANALYZE.
describe("the webhook engine's statements on a table that grew since they were prepared", () => {
  let database: MigratedDatabase | undefined;
  let pool: pg.Pool | undefined;

  beforeAll(async () => {
    database = await createMigratedDatabase('boxoffice_fanout_plans');
    // No ANALYZE during the test: the statistics stay those of the empty table.
    await database.orm.em
      .getConnection()
      .execute(
        'alter table change_records set (autovacuum_enabled = false); analyze change_records',
      );
    pool = new pg.Pool(enginePoolConfig(database.url));
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('reads the next batch by the index once the table has grown', async () => {
    const client = await pool!.connect();
    try {
      const start = { tx: '0', pos: '0' };
      // More runs than PostgreSQL makes before it considers a generic plan.
      for (let i = 0; i < 8; i++) await matchBatch(client, start, FANOUT_BATCH);
      await client.query(
        `insert into change_records (organisation_id, type, object_id, data, created_at)
         select 'org_plans', 'event.updated', 'evt_' || n, '{}'::jsonb, now()
           from generate_series(1, 50000) n`,
      );
      const { rows } = await client.query<{ name: string }>(
        `select name from pg_prepared_statements where statement like '%from change_records%'`,
      );
      const name = rows[0]?.name;
      if (!name) throw new Error('the batch statement was not prepared on this connection');
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `explain execute "${name}"('0', 0, ${FANOUT_BATCH})`,
      );
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toContain('Index Scan using change_records_transaction_position_index');
      expect(text).not.toMatch(/Seq Scan on change_records/);
    } finally {
      client.release();
    }
  });
});
