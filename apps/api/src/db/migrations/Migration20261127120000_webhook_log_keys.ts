import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook messages and attempts, the tables every delivery writes, lose their foreign keys, and
 * messages their `created_at` index.
 *
 * A foreign key is checked row by row with a query each connection plans once and keeps: planned
 * while the table was small (a new deployment, a quiet spell), it reads the whole table, and goes on
 * doing so as the table grows, until the next ANALYZE. Checking each attempt against its message
 * cost PostgreSQL more than the delivery's own statements a minute after start. The rows these
 * keys guarded are kept together by the statements instead: the fan-out makes messages only for
 * endpoints it holds (`for key share`), so deleting one waits for it; an attempt is recorded only
 * with the update of its message, which a deletion waits for or makes miss; deleting an endpoint
 * deletes its messages, then their attempts (webhook-endpoint.service.ts).
 *
 * The retention purge finds old messages by id, which begins with their time of creation (the
 * primary key's order), so the `created_at` index is one index fewer to write per message.
 */
export class Migration20261127120000_webhook_log_keys extends Migration {
  override name = 'Migration20261127120000_webhook_log_keys';

  override up(): void {
    this.addSql(
      `alter table "webhook_attempts" drop constraint "webhook_attempts_message_id_fkey";`,
    );
    this.addSql(
      `alter table "webhook_messages" drop constraint "webhook_messages_endpoint_id_fkey";`,
    );
    this.addSql(`drop index "webhook_messages_created_at_index";`);
  }

  override down(): void {
    this.addSql(
      `create index "webhook_messages_created_at_index" on "webhook_messages" ("created_at");`,
    );
    this.addSql(
      `delete from "webhook_messages" m where not exists (select 1 from "webhook_endpoints" e where e."id" = m."endpoint_id");`,
    );
    this.addSql(
      `alter table "webhook_messages" add constraint "webhook_messages_endpoint_id_fkey" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on delete cascade;`,
    );
    this.addSql(
      `delete from "webhook_attempts" a where not exists (select 1 from "webhook_messages" m where m."id" = a."message_id");`,
    );
    this.addSql(
      `alter table "webhook_attempts" add constraint "webhook_attempts_message_id_fkey" foreign key ("message_id") references "webhook_messages" ("id") on delete cascade;`,
    );
  }
}
