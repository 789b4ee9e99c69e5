import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks. Endpoints an organisation registers; one message per change record and matching
 * endpoint, with a stable id (the `webhook-id` header), handed to the job queue (`queued`) in the
 * transaction that creates it, or by the next fan-out for messages made elsewhere (a resend, a
 * test event); every delivery attempt. The fan-out reads
 * change records in the order of (transaction id, position), only below the oldest transaction
 * still running, so a record committed late is never passed over: hence the index.
 */
export class Migration20261126000000_webhooks extends Migration {
  override name = 'Migration20261126000000_webhooks';

  override up(): void {
    this.addSql(`
      create table "webhook_endpoints" (
        "id" text collate "C" primary key,
        "organisation_id" text collate "C" not null references "organisations" ("id"),
        "url" text not null,
        "description" text,
        "events" text[] not null,
        "status" text not null default 'enabled' check ("status" in ('enabled', 'disabled')),
        "disabled_reason" text,
        "secret" text not null,
        "previous_secret" text,
        "previous_secret_expires_at" timestamptz,
        "failing_since" timestamptz,
        "created_at" timestamptz not null default now(),
        "updated_at" timestamptz not null default now()
      );`);
    this.addSql(
      `create index "webhook_endpoints_org_created_index" on "webhook_endpoints" ("organisation_id", "created_at", "id");`,
    );
    this.addSql(`
      create table "webhook_messages" (
        "id" text collate "C" primary key,
        "endpoint_id" text collate "C" not null references "webhook_endpoints" ("id") on delete cascade,
        "organisation_id" text collate "C" not null,
        "type" text not null,
        "payload" text not null,
        "change_position" bigint,
        "status" text not null default 'pending'
          check ("status" in ('pending', 'delivered', 'failed', 'cancelled')),
        "attempt_count" integer not null default 0,
        "queued" boolean not null default false,
        "created_at" timestamptz not null default now(),
        "delivered_at" timestamptz
      );`);
    this.addSql(
      `create index "webhook_messages_endpoint_created_index" on "webhook_messages" ("endpoint_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "webhook_messages_pending_index" on "webhook_messages" ("created_at") where "status" = 'pending';`,
    );
    this.addSql(
      `create index "webhook_messages_unqueued_index" on "webhook_messages" ("created_at") where not "queued";`,
    );
    this.addSql(
      `create index "webhook_messages_created_at_index" on "webhook_messages" ("created_at");`,
    );
    this.addSql(`
      create table "webhook_attempts" (
        "id" bigint generated always as identity primary key,
        "message_id" text collate "C" not null references "webhook_messages" ("id") on delete cascade,
        "endpoint_id" text collate "C" not null,
        "attempted_at" timestamptz not null,
        "outcome" text not null check ("outcome" in ('succeeded', 'failed')),
        "status_code" integer,
        "duration_ms" integer not null,
        "error" text,
        "response_excerpt" text
      );`);
    this.addSql(
      `create index "webhook_attempts_message_index" on "webhook_attempts" ("message_id", "id");`,
    );
    this.addSql(`
      create table "webhook_fanout_state" (
        "id" integer primary key check ("id" = 1),
        "transaction_id" xid8 not null,
        "position" bigint not null,
        "updated_at" timestamptz not null default now()
      );`);
    this.addSql(
      `insert into "webhook_fanout_state" ("id", "transaction_id", "position") values (1, '0', 0);`,
    );
    this.addSql(
      `create index "change_records_transaction_position_index" on "change_records" ("transaction_id", "position");`,
    );
  }

  override down(): void {
    this.addSql(`drop index "change_records_transaction_position_index";`);
    this.addSql(`drop table "webhook_fanout_state";`);
    this.addSql(`drop table "webhook_attempts";`);
    this.addSql(`drop table "webhook_messages";`);
    this.addSql(`drop table "webhook_endpoints";`);
  }
}
