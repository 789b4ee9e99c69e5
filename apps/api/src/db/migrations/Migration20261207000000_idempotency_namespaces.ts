import { Migration } from '@mikro-orm/migrations';

/**
 * Stored idempotent answers get a namespace: `request` for the answers of whole requests (the
 * `Idempotency-Key` header), `checkin` for those of the scans of a check-in batch (each scan's
 * `idempotency_key`). Both are chosen by clients, per API key, so the same text may be a key in
 * each: the namespace keeps them apart, and is part of the primary key. The rows already stored are
 * requests' (the column's default).
 */
export class Migration20261207000000_idempotency_namespaces extends Migration {
  override name = 'Migration20261207000000_idempotency_namespaces';

  override up(): void {
    this.addSql(`
      alter table "idempotency_records"
        add column "namespace" text not null default 'request'
          check ("namespace" in ('request', 'checkin'));`);
    this.addSql(`
      alter table "idempotency_records"
        drop constraint "idempotency_records_pkey",
        add primary key ("api_key_id", "namespace", "key");`);
  }

  override down(): void {
    this.addSql(`delete from "idempotency_records" where "namespace" <> 'request';`);
    this.addSql(`
      alter table "idempotency_records"
        drop constraint "idempotency_records_pkey",
        add primary key ("api_key_id", "key");`);
    this.addSql(`alter table "idempotency_records" drop column "namespace";`);
  }
}
