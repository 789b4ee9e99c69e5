import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { entities } from './entities';
import { Migration20261122000000_initial } from './migrations/Migration20261122000000_initial';
import { Migration20261122010000_dashboard } from './migrations/Migration20261122010000_dashboard';

export type Orm = MikroORM;
export type { EntityManager } from '@mikro-orm/postgresql';

/** Migrations are listed here rather than discovered on disk, so the bundled build carries them. */
const migrationsList = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261122010000_dashboard', class: Migration20261122010000_dashboard },
];

export interface OrmOptions {
  databaseUrl: string;
  poolMax?: number;
  /** Bounds both connecting and waiting for a pooled connection: past it the request gets a 503. */
  connectTimeoutMs?: number;
  debug?: boolean;
}

export function ormConfig(options: OrmOptions): Options {
  return {
    clientUrl: options.databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: {
      migrationsList,
      tableName: 'mikro_orm_migrations',
      silent: true,
      snapshot: false,
      snapshotOnMigrate: false,
    },
    pool: { min: 0, max: options.poolMax ?? 10, idleTimeoutMillis: 30_000 },
    driverOptions: {
      connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
      // A query that cannot finish in this time is a stuck query; fail it rather than hang the request.
      statement_timeout: 15_000,
      idle_in_transaction_session_timeout: 30_000,
    },
    debug: options.debug ?? false,
    allowGlobalContext: false,
    forceUtcTimezone: true,
  };
}

export async function createOrm(options: OrmOptions): Promise<Orm> {
  return MikroORM.init(ormConfig(options));
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}
