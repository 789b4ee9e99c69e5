import { Migration } from '@mikro-orm/migrations';

/**
 * Exports: a list copied into one file from one snapshot, made in the background. The file is kept
 * in `export_chunks`, in order, about 1 MiB of text each, every chunk one gzip member (so the
 * chunks laid end to end are the gzip-encoded file, and each decompresses alone), with its offsets
 * in both encodings for `Range`. `run_id` is the run of the export's job that wrote a chunk: a job
 * run again (its process died) writes under a new one, and what an earlier run left is deleted.
 */
export class Migration20261209000000_exports extends Migration {
  override name = 'Migration20261209000000_exports';

  override up(): void {
    this.addSql(`
      create table "exports" (
        "id" text collate "C" not null primary key,
        "organisation_id" text not null references "organisations" ("id") on update cascade deferrable initially deferred,
        "resource" text not null check ("resource" in ('events', 'tiers', 'orders', 'tickets', 'attendees', 'checkins', 'payouts')),
        "filters" jsonb not null,
        "format" text not null check ("format" in ('ndjson', 'csv')),
        "status" text not null check ("status" in ('pending', 'running', 'ready', 'failed', 'expired')),
        "run_id" text null,
        "row_count" bigint null,
        "size_bytes" bigint null,
        "gzip_size_bytes" bigint null,
        "sync_checkpoint" timestamptz null,
        "completed_at" timestamptz null,
        "expires_at" timestamptz null,
        "failure_reason" text null,
        "livemode" boolean not null,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null
      );`);
    this.addSql(
      `create index "exports_org_created_index" on "exports" ("organisation_id", "created_at", "id");`,
    );
    this.addSql(
      `create index "exports_org_updated_index" on "exports" ("organisation_id", "updated_at", "id");`,
    );
    this.addSql(`
      create table "export_chunks" (
        "export_id" text collate "C" not null references "exports" ("id") on delete cascade,
        "run_id" text not null,
        "seq" int not null,
        "raw_offset" bigint not null,
        "raw_size" int not null,
        "gzip_offset" bigint not null,
        "gzip_size" int not null,
        "data" bytea not null,
        primary key ("export_id", "run_id", "seq")
      );`);
    // Chunks are compressed already: PostgreSQL's own compression of them would only cost time.
    this.addSql(`alter table "export_chunks" alter column "data" set storage external;`);
  }

  override down(): void {
    this.addSql(`drop table "export_chunks";`);
    this.addSql(`drop table "exports";`);
  }
}
