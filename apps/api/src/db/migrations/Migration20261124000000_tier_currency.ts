import { Migration } from '@mikro-orm/migrations';

/**
 * A tier's currency is its event's, kept by the database: tiers refer to their event's
 * `(id, currency)`, so an event's currency cannot change once it has tiers (`ON UPDATE RESTRICT`,
 * checked at the statement, never deferred). Tiers have always taken their event's currency when
 * created, and an event's currency changed only while it had none; a tier that disagrees stops the
 * migration with its id, rather than with the bare constraint error.
 */
export class Migration20261124000000_tier_currency extends Migration {
  override name = 'Migration20261124000000_tier_currency';

  override up(): void {
    this.addSql(`
      do $$
      declare
        mismatched text;
      begin
        select string_agg(t.id, ', ' order by t.id) into mismatched
          from "ticket_tiers" t join "events" e on e.id = t.event_id
         where t.currency <> e.currency;
        if mismatched is not null then
          raise exception 'ticket tiers whose currency differs from their event''s: %', mismatched;
        end if;
      end $$;`);
    this.addSql(
      `alter table "events" add constraint "events_id_currency_unique" unique ("id", "currency");`,
    );
    this.addSql(`
      alter table "ticket_tiers" add constraint "ticket_tiers_event_id_currency_fkey"
        foreign key ("event_id", "currency") references "events" ("id", "currency")
        on update restrict not deferrable;`);
  }
}
