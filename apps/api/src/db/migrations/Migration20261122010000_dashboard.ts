import { Migration } from '@mikro-orm/migrations';

/** Dashboard users and their sessions, and the record of plan changes. */
export class Migration20261122010000_dashboard extends Migration {
  override name = 'Migration20261122010000_dashboard';

  override up(): void {
    this.addSql(`
      create table "users" (
        "id" text collate "C" not null primary key,
        "organisation_id" text not null references "organisations" ("id") on update cascade deferrable initially deferred,
        "email" text not null,
        "password_hash" text not null,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null
      );`);
    this.addSql(`create unique index "users_email_unique" on "users" ("email");`);
    this.addSql(`create index "users_organisation_id_index" on "users" ("organisation_id");`);

    this.addSql(`
      create table "user_sessions" (
        "id" text collate "C" not null primary key,
        "user_id" text not null references "users" ("id") on update cascade on delete cascade deferrable initially deferred,
        "token_hash" text not null,
        "csrf_token" text not null,
        "expires_at" timestamptz not null,
        "created_at" timestamptz not null
      );`);
    this.addSql(
      `create unique index "user_sessions_token_hash_unique" on "user_sessions" ("token_hash");`,
    );
    this.addSql(`create index "user_sessions_user_id_index" on "user_sessions" ("user_id");`);

    this.addSql(`
      create table "plan_changes" (
        "id" text collate "C" not null primary key,
        "organisation_id" text not null references "organisations" ("id") on update cascade deferrable initially deferred,
        "from_plan" text not null check ("from_plan" in ('free', 'pro')),
        "to_plan" text not null check ("to_plan" in ('free', 'pro')),
        "changed_by_user_id" text null references "users" ("id") on update cascade on delete set null deferrable initially deferred,
        "created_at" timestamptz not null
      );`);
    this.addSql(
      `create index "plan_changes_organisation_id_index" on "plan_changes" ("organisation_id", "created_at");`,
    );
  }
}
