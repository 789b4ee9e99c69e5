import { Migrator } from '@mikro-orm/migrations';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Migration20261122000000_initial } from './migrations/Migration20261122000000_initial';
import { Migration20261122010000_dashboard } from './migrations/Migration20261122010000_dashboard';
import { Migration20261123000000_changes } from './migrations/Migration20261123000000_changes';
import { Migration20261124000000_tier_currency } from './migrations/Migration20261124000000_tier_currency';
import { Migration20261125000000_list_cursors } from './migrations/Migration20261125000000_list_cursors';
import { Migration20261126000000_webhooks } from './migrations/Migration20261126000000_webhooks';
import { Migration20261127000000_webhook_direct } from './migrations/Migration20261127000000_webhook_direct';
import { Migration20261127120000_webhook_log_keys } from './migrations/Migration20261127120000_webhook_log_keys';
import { Migration20261128000000_webhook_leases } from './migrations/Migration20261128000000_webhook_leases';
import { Migration20261206000000_test_mode } from './migrations/Migration20261206000000_test_mode';
import { Migration20261207000000_idempotency_namespaces } from './migrations/Migration20261207000000_idempotency_namespaces';
import { Migration20261208000000_request_logs } from './migrations/Migration20261208000000_request_logs';
import { Migration20261209000000_exports } from './migrations/Migration20261209000000_exports';

/** Migrations are listed here rather than discovered on disk, so the bundled build carries them. */
const migrationsList = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261122010000_dashboard', class: Migration20261122010000_dashboard },
  { name: 'Migration20261123000000_changes', class: Migration20261123000000_changes },
  { name: 'Migration20261124000000_tier_currency', class: Migration20261124000000_tier_currency },
  { name: 'Migration20261125000000_list_cursors', class: Migration20261125000000_list_cursors },
  { name: 'Migration20261126000000_webhooks', class: Migration20261126000000_webhooks },
  {
    name: 'Migration20261127000000_webhook_direct',
    class: Migration20261127000000_webhook_direct,
  },
  {
    name: 'Migration20261127120000_webhook_log_keys',
    class: Migration20261127120000_webhook_log_keys,
  },
  {
    name: 'Migration20261128000000_webhook_leases',
    class: Migration20261128000000_webhook_leases,
  },
  { name: 'Migration20261206000000_test_mode', class: Migration20261206000000_test_mode },
  {
    name: 'Migration20261207000000_idempotency_namespaces',
    class: Migration20261207000000_idempotency_namespaces,
  },
  {
    name: 'Migration20261208000000_request_logs',
    class: Migration20261208000000_request_logs,
  },
  { name: 'Migration20261209000000_exports', class: Migration20261209000000_exports },
];

/**
 * Gives `orm` its migrator (`orm.migrator`) and the list of migrations. Loaded only by processes
 * that migrate (the operator CLI, the embedded database of `pnpm start`, the tests' set-up), so
 * the server does not load the migrator and the migrations' SQL at start.
 */
export function registerMigrator(orm: MikroORM): void {
  orm.config.set('migrations', { ...orm.config.get('migrations'), migrationsList });
  Migrator.register(orm);
}
