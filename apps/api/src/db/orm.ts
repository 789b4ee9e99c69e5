import { MikroORM, type Options } from '@mikro-orm/postgresql';
import type { Client, Pool, PoolClient } from 'pg';
import type { SecretKey } from '../core/secret-box';
import { useSecretKeys } from './secret-keys';

export type Orm = MikroORM;
export type { EntityManager } from '@mikro-orm/postgresql';

export interface OrmOptions {
  databaseUrl: string;
  /** The entities to map: the modules' (`modules/entities.ts`), which this layer does not know. */
  entities: NonNullable<Options['entities']>;
  poolMax?: number;
  /** Bounds both connecting and waiting for a pooled connection: past it the request gets a 503. */
  connectTimeoutMs?: number;
  /**
   * Bounds each statement, measured by this process: past it the statement fails (a 503). None by
   * default: the operator CLI's migrations may take as long as they need.
   */
  queryTimeoutMs?: number;
  debug?: boolean;
  /** The keys secrets are sealed with at rest (`SECRETS_ENCRYPTION_KEYS`); the development key without. */
  secretKeys?: readonly SecretKey[] | undefined;
}

/** What a statement that ran past the pool's bound is rejected with. */
export const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';

/** When a connection's statement was sent (`performance.now()`), or 0 while it runs none. */
const BUSY_SINCE = Symbol('busySince');
type GuardedClient = Client & { [BUSY_SINCE]: number };

/**
 * Keeps the pool whole when connections fail under load or the database stops answering.
 *
 * A statement that runs past `queryTimeoutMs` fails, and its connection is closed: the statement
 * may still be running there, perhaps in the middle of a transaction, and handed to the next
 * request that connection would queue the new statements behind it, or run them inside the
 * abandoned transaction and commit it. Closed, PostgreSQL rolls the transaction back.
 *
 * The bound is kept by one sweep of the checked-out connections (every tenth of the bound, four
 * times a second at the most), not by `pg`'s `query_timeout`. That option wraps each statement's
 * callback in a closure of its own, and under load, with those closures, most of what statements
 * allocated survived V8's young-generation collections: each collection copied megabytes and the
 * old generation kept filling.
 *
 * And a connection that closes while checked out goes back to the pool at once, to be discarded:
 * the query builder under the ORM releases a transaction's connection only after a successful
 * BEGIN, COMMIT or ROLLBACK, so a transaction on a dead connection would otherwise hold its pool
 * slot for good, and a few of them would leave every later request waiting for a connection.
 */
function guardPool(pool: Pool, queryTimeoutMs: number | undefined): void {
  const checkedOut = new Set<PoolClient>();
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_error, client) => checkedOut.delete(client));
  pool.on('connect', (client: PoolClient) => {
    if (queryTimeoutMs !== undefined) {
      const guarded = client as unknown as GuardedClient;
      guarded[BUSY_SINCE] = 0;
      const query = client.query.bind(client) as (a: unknown, b: unknown, c: unknown) => unknown;
      // `pg`'s query takes three arguments at most (a statement, its values, a callback).
      (client as { query: unknown }).query = (a: unknown, b: unknown, c: unknown) => {
        guarded[BUSY_SINCE] = performance.now();
        return query(a, b, c);
      };
      client.on('drain', () => (guarded[BUSY_SINCE] = 0));
    }
    client.once('end', () => {
      if (!checkedOut.has(client)) return;
      const release = client.release.bind(client);
      // Whoever holds it may still release it later; that second release must be harmless.
      client.release = () => undefined;
      release(new Error('connection closed while checked out'));
    });
  });
  if (queryTimeoutMs === undefined) return;
  const sweep = setInterval(
    () => {
      if (pool.ended) {
        clearInterval(sweep);
        return;
      }
      const now = performance.now();
      for (const client of checkedOut) {
        const guarded = client as unknown as GuardedClient;
        const since = guarded[BUSY_SINCE];
        if (since === 0 || now - since < queryTimeoutMs) continue;
        guarded[BUSY_SINCE] = 0;
        // The statement and any queued behind it fail with this error; the socket is gone, so
        // a server that answers nothing at all cannot hold the connection either. The client
        // also emits it as an `'error'` event, which the ORM's driver listens for on every
        // connection (it logs it).
        guarded.connection.stream.destroy(new Error(QUERY_TIMEOUT_MESSAGE));
      }
    },
    Math.min(250, Math.max(10, queryTimeoutMs / 10)),
  );
  sweep.unref();
}

export function ormConfig(options: OrmOptions): Options {
  const queryTimeout = options.queryTimeoutMs;
  return {
    clientUrl: options.databaseUrl,
    entities: options.entities,
    // The migrator and the migrations are registered by `migrate`, when a process migrates: the
    // server, started against a migrated database, does not load them.
    migrations: {
      tableName: 'mikro_orm_migrations',
      silent: true,
      snapshot: false,
      snapshotOnMigrate: false,
    },
    pool: { min: 0, max: options.poolMax ?? 10, idleTimeoutMillis: 30_000 },
    driverOptions: {
      connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
      // PostgreSQL cancels a slow statement itself (a clean error, the connection stays usable) a
      // little before this process gives up on it; the client-side bound is for a server that
      // cannot answer at all (stopped, or its host gone), which the server-side one never catches.
      ...(queryTimeout === undefined
        ? {}
        : { statement_timeout: Math.max(50, queryTimeout - 500) }),
      idle_in_transaction_session_timeout: 30_000,
      onPoolCreated: (pool: Pool) => guardPool(pool, queryTimeout),
    },
    // `em.create` stamps ids and timestamps at once (see base.entity.ts): services render new
    // entities for their change records before any flush.
    processOnCreateHooksEarly: true,
    debug: options.debug ?? false,
    allowGlobalContext: false,
    forceUtcTimezone: true,
  };
}

/**
 * The ORM, discovered synchronously from the listed entities. `MikroORM.init` would also probe for
 * optional packages (seeder, entity generator, migrator, a glob library) by importing them, which
 * costs start-up time for nothing: the server uses none of them, and `migrate` registers the
 * migrator itself. Neither form connects; the pool connects on the first query.
 */
export function createOrm(options: OrmOptions): Promise<Orm> {
  // A configuration error rejects, as from `MikroORM.init`.
  return new Promise((resolve) => {
    const orm = new MikroORM({ ...ormConfig(options), discovery: { skipSyncDiscovery: false } });
    useSecretKeys(orm.em, options.secretKeys);
    resolve(orm);
  });
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: Orm): Promise<string[]> {
  const { registerMigrator } = await import('./migrator');
  registerMigrator(orm);
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}

/**
 * Applies pending migrations through an ORM of its own that maps no entity (migrations are SQL),
 * for a process that only prepares a database (the test run's set-up); returns the names applied.
 */
export async function migrateDatabase(databaseUrl: string): Promise<string[]> {
  const orm = await MikroORM.init({
    ...ormConfig({ databaseUrl, entities: [] }),
    discovery: { warnWhenNoEntities: false },
  });
  try {
    return await migrate(orm);
  } finally {
    await orm.close();
  }
}
