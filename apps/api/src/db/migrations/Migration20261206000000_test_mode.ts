import { Migration } from '@mikro-orm/migrations';

/**
 * Test mode. An organisation's test environment is an organisation row of its own, its twin, which
 * names the live one in `live_organisation_id`: every table is scoped by `organisation_id` already,
 * so test data stays apart from live data by the same rule that keeps organisations apart. At most
 * one twin per live organisation (the unique index, which also makes its creation race-safe); it
 * goes with its live organisation. `test_data_seeded_at` marks a twin given its sample data, which
 * happens at its first use rather than when it is made; `test_data_busy_until` is held while its
 * sample data is being made or remade (a lease: a process that died meanwhile holds it no longer).
 */
export class Migration20261206000000_test_mode extends Migration {
  override name = 'Migration20261206000000_test_mode';

  override up(): void {
    this.addSql(`
      alter table "organisations"
        add column "live_organisation_id" text null
          references "organisations" ("id") on delete cascade,
        add column "test_data_seeded_at" timestamptz null,
        add column "test_data_busy_until" timestamptz null;`);
    this.addSql(
      `create unique index "organisations_live_organisation_id_unique" on "organisations" ("live_organisation_id");`,
    );
  }

  override down(): void {
    this.addSql(`delete from "organisations" where "live_organisation_id" is not null;`);
    this.addSql(`drop index "organisations_live_organisation_id_unique";`);
    this.addSql(
      `alter table "organisations" drop column "live_organisation_id", drop column "test_data_seeded_at", drop column "test_data_busy_until";`,
    );
  }
}
