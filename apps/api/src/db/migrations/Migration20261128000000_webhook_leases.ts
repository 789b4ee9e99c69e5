import { Migration } from '@mikro-orm/migrations';

/**
 * A message sent at once is written once, after its first attempt, in its state after it: the
 * fan-out round that sends it holds a lease on its batch of change records instead of a mark on
 * each message (`direct_until`, written at the message's making and cleared at its attempt). A
 * lease past its time is recovered by a later round: the batch's messages are made again (their ids
 * derive from record and endpoint) and those never written are handed to the queue.
 *
 * Messages a previous version marked and had not yet attempted are handed to the queue by the next
 * round (`queued = false`); one whose attempt was under way may come twice, as at-least-once allows.
 */
export class Migration20261128000000_webhook_leases extends Migration {
  override name = 'Migration20261128000000_webhook_leases';

  override up(): void {
    this.addSql(`
      create table "webhook_fanout_leases" (
        "id" bigint generated always as identity primary key,
        "after_transaction_id" xid8 not null,
        "after_position" bigint not null,
        "through_transaction_id" xid8 not null,
        "through_position" bigint not null,
        "first_change_at" timestamptz not null,
        "expires_at" timestamptz not null
      );`);
    this.addSql(
      `update "webhook_messages" set "queued" = false where "direct_until" is not null and "status" = 'pending';`,
    );
    this.addSql(`drop index "webhook_messages_direct_index";`);
    this.addSql(`alter table "webhook_messages" drop column "direct_until";`);
  }

  override down(): void {
    this.addSql(`alter table "webhook_messages" add column "direct_until" timestamptz null;`);
    this.addSql(
      `create index "webhook_messages_direct_index" on "webhook_messages" ("direct_until") where "direct_until" is not null;`,
    );
    this.addSql(`drop table "webhook_fanout_leases";`);
  }
}
