import { Migration } from '@mikro-orm/migrations';

/**
 * The change log: one row per create or update of a public resource, written in the transaction
 * of the change itself. And idempotency records that are written once, with their answer, in the
 * transaction of the effect: no more `running` claims (the columns stay, unused, until the release
 * after this one, so a server of the previous release can still run beside this one).
 */
export class Migration20261123000000_changes extends Migration {
  override name = 'Migration20261123000000_changes';

  override up(): void {
    this.addSql(`
      create table "change_records" (
        "position" bigint generated always as identity primary key,
        "organisation_id" text collate "C" not null,
        "type" text not null,
        "object_id" text collate "C" not null,
        "data" jsonb not null,
        "transaction_id" xid8 not null default pg_current_xact_id(),
        "created_at" timestamptz not null default now()
      );`);
    this.addSql(
      `create index "change_records_organisation_id_position_index" on "change_records" ("organisation_id", "position");`,
    );
    this.addSql(
      `create index "change_records_created_at_index" on "change_records" ("created_at");`,
    );
    this.addSql(`alter table "idempotency_records" alter column "state" set default 'done';`);
    this.addSql(`alter table "idempotency_records" alter column "locked_until" set default now();`);
  }
}
