import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, ormConfig } from '../src/db/orm';
import { entities } from '../src/modules/entities';
import { createScratchDatabase } from './setup';

/**
 * Differences the entities cannot express, each left out by name:
 * - tables no entity maps: their services write them in plain SQL (the change log, the stored
 *   idempotent answers, the request log and its daily partitions, the chunks of export files);
 * - foreign keys, which only the migrations declare: an entity holds another row's id as a plain
 *   value, since a module maps its own tables only.
 */
const TABLES_WITHOUT_ENTITY = [
  'change_records',
  'idempotency_records',
  'server_secrets',
  'export_chunks',
  'webhook_endpoints',
  'webhook_messages',
  'webhook_attempts',
  'webhook_fanout_state',
  'webhook_fanout_leases',
  /^request_logs/,
];
const FOREIGN_KEY_DROP = /^alter table "\w+" drop constraint "(\w+_fkey)";$/;

let database: Awaited<ReturnType<typeof createScratchDatabase>>;
let orm: MikroORM;

/** What the schema generator would change to make the database match the entities. */
async function drift(): Promise<{ statements: string[]; foreignKeys: string[] }> {
  const sql = await orm.schema.getUpdateSchemaSQL({ wrap: false });
  const lines = sql
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return {
    statements: lines.filter((line) => !FOREIGN_KEY_DROP.test(line)),
    foreignKeys: lines.flatMap((line) => FOREIGN_KEY_DROP.exec(line)?.[1] ?? []).sort(),
  };
}

// A database of its own, freshly migrated: the run's shared one gets test tables and triggers.
beforeAll(async () => {
  database = await createScratchDatabase('boxoffice_schema');
  orm = await MikroORM.init({
    ...ormConfig({ databaseUrl: database.url, entities }),
    schemaGenerator: { skipTables: TABLES_WITHOUT_ENTITY },
  });
  await migrate(orm);
});

afterAll(async () => {
  // Unset where beforeAll failed before it got to them.
  await (orm as MikroORM | undefined)?.close();
  await (database as typeof database | undefined)?.drop();
});

describe('the entities and the migrated schema', () => {
  it('agree: columns, types, defaults, checks, indexes and unique constraints', async () => {
    const { statements, foreignKeys } = await drift();
    expect(statements).toEqual([]);
    // What was left out is exactly the foreign keys the migrations declare.
    const declared = await orm.em
      .fork()
      .getConnection()
      .execute<{ name: string; table: string }[]>(
        `select c.conname as name, t.relname as "table"
           from pg_constraint c join pg_class t on t.oid = c.conrelid where c.contype = 'f'`,
      );
    expect(foreignKeys).toEqual(
      declared
        .filter((fk) => !TABLES_WITHOUT_ENTITY.includes(fk.table))
        .map((fk) => fk.name)
        .sort(),
    );
    expect(foreignKeys).toContain('ticket_tiers_event_id_currency_fkey');
  });

  it('tells when they disagree', async () => {
    const connection = orm.em.fork().getConnection();
    await connection.execute('drop index "events_org_updated_index"');
    await connection.execute(`alter table "ticket_tiers" alter column "sort_order" drop default`);
    await connection.execute(`alter table "attendees" add column "nickname" text null`);
    const { statements } = await drift();
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/create index "events_org_updated_index"/),
        expect.stringMatching(/"ticket_tiers" alter column "sort_order" set default 0/),
        expect.stringMatching(/"attendees" drop column "nickname"/),
      ]),
    );
  });
});
