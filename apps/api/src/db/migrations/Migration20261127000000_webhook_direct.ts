import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook messages sent at once: the replica that makes a message (the fan-out) sends it itself,
 * right after its transaction commits, and hands it to the job queue only when that attempt fails.
 * `direct_until` marks a message whose first attempt that replica has taken on; a message still
 * pending when it passes (the replica stopped or crashed) is handed to the queue by the next round.
 * A message made from a change record no longer copies the record's object: `payload` is kept only
 * for messages without one (test events), and retries compose it from the record.
 */
export class Migration20261127000000_webhook_direct extends Migration {
  override name = 'Migration20261127000000_webhook_direct';

  override up(): void {
    this.addSql(`alter table "webhook_messages" add column "direct_until" timestamptz null;`);
    this.addSql(`alter table "webhook_messages" alter column "payload" drop not null;`);
    this.addSql(
      `create index "webhook_messages_direct_index" on "webhook_messages" ("direct_until") where "direct_until" is not null;`,
    );
  }

  override down(): void {
    this.addSql(`drop index "webhook_messages_direct_index";`);
    this.addSql(`update "webhook_messages" set "payload" = '' where "payload" is null;`);
    this.addSql(`alter table "webhook_messages" alter column "payload" set not null;`);
    this.addSql(`alter table "webhook_messages" drop column "direct_until";`);
  }
}
