import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type Transaction } from 'kysely';
import type { Pool, PoolClient } from 'pg';

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

/** The commands whose row count `pg` reports as rows written. */
const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * A transaction on one connection of the ORM's `pg` pool, begun and ended by `boundedTransaction`
 * (db/context.ts), and the transaction context of the entity manager that works in it. The ORM
 * asks a transaction context for nothing but `executeQuery` while it runs statements in it (its
 * savepoints, begin, commit and rollback are not used: `boundedTransaction` sends those itself);
 * `run` sends its statements to the connection directly.
 *
 * Why not the ORM's own transactions: they go through its query builder's transaction machinery,
 * a few layers of promises per statement, and on a check-in (five statements) those layers and an
 * empty flush cost about 150 µs of the server's CPU, a tenth of all it spends on the request
 * (bench/README.md).
 */
export class PoolTransaction {
  readonly client: PoolClient;

  constructor(client: PoolClient) {
    this.client = client;
  }

  /** A statement of the ORM's, answered in the shape its query builder's driver gives. */
  async executeQuery(compiled: {
    sql: string;
    parameters: readonly unknown[];
  }): Promise<{ rows: unknown[]; numAffectedRows?: bigint }> {
    const { command, rowCount, rows } = await this.client.query(compiled.sql, [
      ...compiled.parameters,
    ]);
    return WRITES.has(command) ? { rows, numAffectedRows: BigInt(rowCount ?? 0) } : { rows };
  }
}

/**
 * Runs one statement whose placeholders are already PostgreSQL's (`$1`, `$2`, …) straight on the
 * ORM's `pg` pool, on whichever connection is free, prepared (`remembered`). Never inside a
 * transaction. The list reads (db/pages.ts) call it: they number their own placeholders and run a
 * page and its count side by side, on two connections.
 */
export async function query<R>(
  em: EntityManager,
  text: string,
  params: readonly unknown[],
): Promise<R[]> {
  if (em.isInTransaction()) throw new Error('db/sql query() runs outside transactions');
  return onPool<R>(
    em,
    remembered(queryTexts, text, (name) => ({ text, name })),
    params,
  );
}

async function onPool<R>(
  em: EntityManager,
  prepared: Prepared,
  params: readonly unknown[],
): Promise<R[]> {
  const pool = await pgPool(em);
  const result = await pool.query(config(prepared, params));
  return result.rows as R[];
}

/** A statement text as `pg` gets it, with its name when prepared. */
interface Prepared {
  text: string;
  name: string | undefined;
}

/** One of `run`'s statement texts, its `?` placeholders numbered. */
interface Numbered extends Prepared {
  placeholders: number;
}

/**
 * `text` with its `?` placeholders numbered as PostgreSQL's `$1`, `$2`, …, and how many there
 * were. A `?` inside a quoted literal or identifier is left alone.
 */
function numberPlaceholders(text: string): { text: string; placeholders: number } {
  let out = '';
  let count = 0;
  let from = 0;
  let quote = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (quote !== 0) {
      if (char === quote) quote = 0;
    } else if (char === 39 || char === 34) {
      quote = char;
    } else if (char === 63) {
      out += `${text.slice(from, i)}$${++count}`;
      from = i + 1;
    }
  }
  return { text: count === 0 ? text : out + text.slice(from), placeholders: count };
}

function checkValues(statement: Numbered, values: readonly unknown[]): void {
  if (statement.placeholders !== values.length) {
    throw new Error(
      `statement has ${statement.placeholders} placeholders for ${values.length} values`,
    );
  }
}

/** At most this many statement texts get a name (distinct texts are few: see `remembered`). */
const MAX_NAMED_STATEMENTS = 500;
/** How `pg` gets each text `run` was given (with `?` placeholders) and each `query` was given. */
const runTexts = new Map<string, Numbered>();
const queryTexts = new Map<string, Prepared>();
let named = 0;

/**
 * A statement text as `pg` gets it, worked out once per text by `work` (which numbers `run`'s
 * texts: at every run, numbering a check-in's combined statement took 6–7 µs, finding it takes
 * well under one) and named. PostgreSQL parses a named statement once per connection and keeps
 * it, and after a few executions keeps a plan for it as well; an unnamed statement is parsed and
 * planned at every execution, which cost the database about a third of its CPU per check-in (the
 * key lookup alone spent longer being planned than run; see bench/README.md). The services'
 * statement texts are fixed but for a few variants (a number of rows, a column to match on), and
 * the list reads' depend on the filters used, not on their values or the page (the bounds are
 * values too), so the names stay few; should a caller build unbounded texts, those past the cap
 * are worked out at every run and go unnamed. No statement here selects `*`: a column added by a
 * migration while a server runs does not change what a prepared statement returns.
 */
function remembered<P extends Prepared>(
  known: Map<string, P>,
  source: string,
  work: (name: string | undefined) => P,
): P {
  const found = known.get(source);
  if (found) return found;
  if (named >= MAX_NAMED_STATEMENTS) return work(undefined);
  const prepared = work(`boxoffice_${++named}`);
  known.set(source, prepared);
  return prepared;
}

/** The query config for `pg`: the statement prepared under its name unless past the cap. */
const config = (prepared: Prepared, values: readonly unknown[]) => ({
  name: prepared.name,
  text: prepared.text,
  values: values as unknown[],
});

/**
 * Runs a plain-SQL statement: in the transaction of `em` (on its connection) when it has one,
 * whether `boundedTransaction` began it or the ORM (`em.transactional`), otherwise straight on
 * the ORM's `pg` pool (the same connections, pool size and timeouts, on whichever connection is
 * free). The values go as parameters, the statement as a prepared one (`remembered`). The rows
 * come back as `em.execute` returns them (the same type parsers), without the ORM's pipeline
 * around the statement: it writes every value into the SQL text and copies the result into
 * another array, which cost the hot paths (a key lookup per request, the statements of a
 * check-in) more than the database took to run them (bench/README.md). Errors are `pg`'s own,
 * with PostgreSQL's SQLSTATE `code`.
 */
export async function run<R = Record<string, unknown>>(
  em: EntityManager,
  statement: Statement,
): Promise<R[]> {
  const prepared = remembered(runTexts, statement.text, (name) => ({
    ...numberPlaceholders(statement.text),
    name,
  }));
  checkValues(prepared, statement.params);
  const transaction = em.getTransactionContext<PoolTransaction | Transaction<unknown>>();
  if (!transaction) return onPool<R>(em, prepared, statement.params);
  if (transaction instanceof PoolTransaction) {
    return (await transaction.client.query(config(prepared, statement.params))).rows as R[];
  }
  // The ORM's own transactions (`em.transactional`) take their statements as text only.
  const result = await transaction.executeQuery<R>(
    CompiledQuery.raw(prepared.text, statement.params),
  );
  return result.rows;
}
