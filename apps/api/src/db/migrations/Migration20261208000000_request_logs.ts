import { Migration } from '@mikro-orm/migrations';

/**
 * The request log: one row per `/api/v1` request of an organisation, written in batches off the
 * request's path (modules/request-logs). The table is partitioned by range on `created_at`, one
 * partition per UTC day (`request_logs_YYYYMMDD`), so that retention drops a whole day's partition
 * instead of deleting rows. The maintenance (`maintainRequestLogPartitions`) makes the next days'
 * partitions ahead of time and drops those past REQUEST_LOG_RETENTION_DAYS; rows for a day that has
 * no partition yet land in the default partition, and the maintenance moves them into their day's.
 *
 * `id` is made by the server for each record (two replicas never make the same); `request_id` is the
 * `X-Request-Id` the answer carried, which a caller may have chosen. The Logs page reads an
 * organisation's records newest first (`request_logs_org_created_index`) and looks one up by its
 * request id (`request_logs_org_request_id_index`).
 */
export class Migration20261208000000_request_logs extends Migration {
  override name = 'Migration20261208000000_request_logs';

  override up(): void {
    this.addSql(`
      create table "request_logs" (
        "id" text collate "C" not null,
        "created_at" timestamptz not null,
        "organisation_id" text collate "C" not null,
        "livemode" boolean not null,
        "api_key_id" text collate "C",
        "key_hint" text,
        "method" text not null,
        "route" text not null,
        "path" text not null,
        "status" smallint not null,
        "error_code" text,
        "duration_ms" real not null,
        "request_id" text collate "C" not null,
        "idempotency_key" text,
        "idempotent_replayed" boolean not null default false,
        "client_address" text,
        "user_agent" text,
        "sdk_name" text,
        "sdk_version" text,
        "response_bytes" integer,
        "request_body" text,
        "request_body_truncated" boolean not null default false,
        "request_body_omitted" text,
        "error_body" text,
        "error_body_truncated" boolean not null default false,
        primary key ("id", "created_at")
      ) partition by range ("created_at");`);
    this.addSql(
      `create index "request_logs_org_created_index" on "request_logs" ("organisation_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "request_logs_org_request_id_index" on "request_logs" ("organisation_id", "request_id");`,
    );
    this.addSql(`create table "request_logs_default" partition of "request_logs" default;`);
    // Today's partition and the next two; the server's maintenance keeps them coming.
    this.addSql(`
      do $$
      declare day date;
      begin
        for day in select generate_series((now() at time zone 'UTC')::date,
                                          (now() at time zone 'UTC')::date + 2, interval '1 day')::date
        loop
          execute format(
            'create table if not exists %I partition of "request_logs" for values from (%L) to (%L)',
            'request_logs_' || to_char(day, 'YYYYMMDD'),
            day::timestamp at time zone 'UTC', (day + 1)::timestamp at time zone 'UTC');
        end loop;
      end $$;`);
  }

  override down(): void {
    this.addSql(`drop table "request_logs";`);
  }
}
