import { Migration } from '@mikro-orm/migrations';

/**
 * The v1 schema: organisations and their keys, the ticketing resources, idempotency records.
 * Foreign keys are checked at commit (deferred), so one transaction may insert a ticket and its
 * attendee, which refer to each other, in either order.
 */
export class Migration20261122000000_initial extends Migration {
  override name = 'Migration20261122000000_initial';

  override up(): void {
    this.addSql(`
      create table "organisations" (
        "id" text collate "C" not null primary key,
        "name" text not null,
        "plan" text not null default 'free' check ("plan" in ('free', 'pro')),
        "plan_changed_at" timestamptz null,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null
      );`);
    this.addSql(`
      create table "api_keys" (
        "id" text collate "C" not null primary key,
        "organisation_id" text not null references "organisations" ("id") on update cascade deferrable initially deferred,
        "name" text not null,
        "hint" text not null,
        "key_hash" text not null,
        "scopes" text[] not null,
        "last_used_at" timestamptz null,
        "revoked_at" timestamptz null,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null
      );`);
    this.addSql(`create unique index "api_keys_key_hash_unique" on "api_keys" ("key_hash");`);
    this.addSql(`create index "api_keys_organisation_id_index" on "api_keys" ("organisation_id");`);

    this.addSql(`
      create table "events" (
        "id" text collate "C" not null primary key,
        "organisation_id" text not null references "organisations" ("id") on update cascade deferrable initially deferred,
        "name" text not null,
        "description" text null,
        "venue" text null,
        "timezone" text not null,
        "starts_at" timestamptz not null,
        "ends_at" timestamptz not null,
        "doors_open_at" timestamptz null,
        "currency" text not null,
        "capacity" int null,
        "status" text not null check ("status" in ('draft', 'published', 'completed', 'cancelled')),
        "published_at" timestamptz null,
        "cancelled_at" timestamptz null,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null
      );`);
    this.addSql(
      `create index "events_org_created_index" on "events" ("organisation_id", "created_at", "id");`,
    );
    this.addSql(
      `create index "events_org_updated_index" on "events" ("organisation_id", "updated_at", "id");`,
    );

    this.addSql(`
      create table "ticket_tiers" (
        "id" text collate "C" not null primary key,
        "organisation_id" text not null references "organisations" ("id") on update cascade deferrable initially deferred,
        "event_id" text not null references "events" ("id") on update cascade deferrable initially deferred,
        "name" text not null,
        "description" text null,
        "price" int not null,
        "currency" text not null,
        "quantity_total" int null,
        "quantity_sold" int not null default 0,
        "max_per_order" int null,
        "sales_start_at" timestamptz null,
        "sales_end_at" timestamptz null,
        "sort_order" int not null default 0,
        "status" text not null check ("status" in ('on_sale', 'paused', 'hidden', 'sold_out')),
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null
      );`);
    this.addSql(
      `create index "ticket_tiers_org_event_index" on "ticket_tiers" ("organisation_id", "event_id", "sort_order", "id");`,
    );
    this.addSql(`create index "ticket_tiers_event_id_index" on "ticket_tiers" ("event_id");`);

    this.addSql(`
      create table "orders" (
        "id" text collate "C" not null primary key,
        "organisation_id" text not null references "organisations" ("id") on update cascade deferrable initially deferred,
        "event_id" text not null references "events" ("id") on update cascade deferrable initially deferred,
        "reference" text not null,
        "buyer_name" text not null,
        "buyer_email" text not null,
        "status" text not null check ("status" in ('pending', 'completed', 'cancelled', 'refunded')),
        "subtotal" int not null,
        "fees" int not null,
        "total" int not null,
        "refunded_amount" int not null default 0,
        "currency" text not null,
        "ticket_count" int not null,
        "placed_at" timestamptz not null,
        "paid_at" timestamptz null,
        "cancelled_at" timestamptz null,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null
      );`);
    this.addSql(
      `create unique index "orders_org_reference_unique" on "orders" ("organisation_id", "reference");`,
    );
    this.addSql(
      `create index "orders_org_created_index" on "orders" ("organisation_id", "created_at", "id");`,
    );
    this.addSql(`create index "orders_event_id_index" on "orders" ("event_id");`);

    this.addSql(`
      create table "tickets" (
        "id" text collate "C" not null primary key,
        "organisation_id" text not null references "organisations" ("id") on update cascade deferrable initially deferred,
        "order_id" text not null references "orders" ("id") on update cascade deferrable initially deferred,
        "event_id" text not null references "events" ("id") on update cascade deferrable initially deferred,
        "tier_id" text not null references "ticket_tiers" ("id") on update cascade deferrable initially deferred,
        "attendee_id" text not null,
        "code" text not null,
        "status" text not null check ("status" in ('valid', 'checked_in', 'void')),
        "price" int not null,
        "currency" text not null,
        "checked_in_at" timestamptz null,
        "voided_at" timestamptz null,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null
      );`);
    this.addSql(`create unique index "tickets_code_unique" on "tickets" ("code");`);
    this.addSql(
      `create index "tickets_org_created_index" on "tickets" ("organisation_id", "created_at", "id");`,
    );
    this.addSql(`create index "tickets_order_id_index" on "tickets" ("order_id");`);
    this.addSql(`create index "tickets_event_id_index" on "tickets" ("event_id");`);

    this.addSql(`
      create table "attendees" (
        "id" text collate "C" not null primary key,
        "organisation_id" text not null references "organisations" ("id") on update cascade deferrable initially deferred,
        "ticket_id" text not null references "tickets" ("id") on update cascade deferrable initially deferred,
        "order_id" text not null references "orders" ("id") on update cascade deferrable initially deferred,
        "event_id" text not null references "events" ("id") on update cascade deferrable initially deferred,
        "first_name" text not null,
        "last_name" text not null,
        "email" text null,
        "company" text null,
        "answers" jsonb not null,
        "checked_in" boolean not null default false,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null
      );`);
    this.addSql(`create unique index "attendees_ticket_id_unique" on "attendees" ("ticket_id");`);
    this.addSql(
      `create index "attendees_org_created_index" on "attendees" ("organisation_id", "created_at", "id");`,
    );
    this.addSql(`create index "attendees_event_id_index" on "attendees" ("event_id");`);

    this.addSql(`
      create table "checkins" (
        "id" text collate "C" not null primary key,
        "organisation_id" text not null references "organisations" ("id") on update cascade deferrable initially deferred,
        "event_id" text not null references "events" ("id") on update cascade deferrable initially deferred,
        "ticket_id" text not null references "tickets" ("id") on update cascade deferrable initially deferred,
        "attendee_id" text not null,
        "api_key_id" text null references "api_keys" ("id") on update cascade on delete set null deferrable initially deferred,
        "direction" text not null check ("direction" in ('entry', 'exit')),
        "gate" text null,
        "device_id" text null,
        "scanned_at" timestamptz not null,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null
      );`);
    this.addSql(
      `create index "checkins_org_created_index" on "checkins" ("organisation_id", "created_at", "id");`,
    );
    this.addSql(`create index "checkins_ticket_id_index" on "checkins" ("ticket_id");`);
    this.addSql(`create index "checkins_event_id_index" on "checkins" ("event_id");`);

    this.addSql(`
      create table "payouts" (
        "id" text collate "C" not null primary key,
        "organisation_id" text not null references "organisations" ("id") on update cascade deferrable initially deferred,
        "event_id" text null references "events" ("id") on update cascade on delete set null deferrable initially deferred,
        "gross_amount" int not null,
        "fees_amount" int not null,
        "refunds_amount" int not null,
        "amount" int not null,
        "currency" text not null,
        "status" text not null check ("status" in ('pending', 'in_transit', 'paid', 'cancelled', 'failed')),
        "period_start" timestamptz not null,
        "period_end" timestamptz not null,
        "arrival_date" date null,
        "paid_at" timestamptz null,
        "failure_reason" text null,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null
      );`);
    this.addSql(
      `create index "payouts_org_created_index" on "payouts" ("organisation_id", "created_at", "id");`,
    );

    this.addSql(`
      create table "idempotency_records" (
        "api_key_id" text not null references "api_keys" ("id") on update cascade on delete cascade deferrable initially deferred,
        "key" text not null,
        "fingerprint" text not null,
        "state" text not null check ("state" in ('running', 'done')),
        "response_status" int null,
        "response_body" jsonb null,
        "locked_until" timestamptz not null,
        "expires_at" timestamptz not null,
        "created_at" timestamptz not null,
        primary key ("api_key_id", "key")
      );`);
    this.addSql(
      `create index "idempotency_records_expires_at_index" on "idempotency_records" ("expires_at");`,
    );
  }
}
