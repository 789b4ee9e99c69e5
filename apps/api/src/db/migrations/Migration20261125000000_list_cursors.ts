import { Migration } from '@mikro-orm/migrations';

/**
 * Cursor pagination: every list can continue after its last item in the order it uses
 * (`created_at, id`; `updated_at, id` with `updated_since`; tiers also `sort_order, id`), so each
 * of those orders gets an index that starts with the organisation. `server_secrets` holds the key
 * that signs list cursors, shared by every instance and kept across restarts, so a stored cursor
 * still works after a deploy.
 */
export class Migration20261125000000_list_cursors extends Migration {
  override name = 'Migration20261125000000_list_cursors';

  override up(): void {
    for (const table of ['ticket_tiers', 'orders', 'tickets', 'attendees', 'payouts']) {
      this.addSql(
        `create index "${table}_org_updated_index" on "${table}" ("organisation_id", "updated_at", "id");`,
      );
    }
    this.addSql(
      `create index "ticket_tiers_org_sort_index" on "ticket_tiers" ("organisation_id", "sort_order", "id");`,
    );
    this.addSql(`
      create table "server_secrets" (
        "name" text primary key,
        "value" text not null,
        "created_at" timestamptz not null default now()
      );`);
    // 244 random bits from PostgreSQL's strong random source.
    this.addSql(`
      insert into "server_secrets" ("name", "value")
      values ('list_cursor', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));`);
  }

  override down(): void {
    this.addSql(`drop table "server_secrets";`);
    this.addSql(`drop index "ticket_tiers_org_sort_index";`);
    for (const table of ['ticket_tiers', 'orders', 'tickets', 'attendees', 'payouts']) {
      this.addSql(`drop index "${table}_org_updated_index";`);
    }
  }
}
