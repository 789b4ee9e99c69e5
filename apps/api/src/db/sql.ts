import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';

/**
 * A statement, or a part of one: text with the ORM's `?` placeholders, and the values in their
 * order. A service hands out the statements on its own tables; a caller may run several of them
 * as one (`with a as (…), b as (…) …`), one round trip instead of several.
 */
export interface Statement {
  text: string;
  params: unknown[];
}

const pools = new WeakMap<object, Promise<Pool>>();

/**
 * The ORM's `pg` pool, looked up once per connection. Once the ORM is closed the same (ended) pool
 * is returned: asking the ORM again would reconnect.
 */
export function pgPool(em: EntityManager): Promise<Pool> {
  const connection = em.getConnection();
  let pool = pools.get(connection);
  if (!pool) {
    pool = connection.getNativeClient();
    pools.set(connection, pool);
    pool.catch(() => pools.delete(connection));
  }
  return pool;
}

/**
 * Runs one statement straight on the ORM's `pg` pool (the same connections, pool size and
 * timeouts), for per-request hot paths where the ORM's query pipeline costs more than the query
 * itself. Placeholders are `$1`, `$2`, … Never inside a transaction: the statement runs on
 * whichever pooled connection is free, not on the transaction's.
 */
export async function query<R>(
  em: EntityManager,
  text: string,
  params: readonly unknown[],
): Promise<R[]> {
  if (em.isInTransaction()) throw new Error('db/sql query() runs outside transactions');
  const result = await (await pgPool(em)).query(text, params as unknown[]);
  return result.rows as R[];
}
