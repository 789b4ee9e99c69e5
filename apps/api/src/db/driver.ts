/**
 * The data layer's one driver for plain SQL, beside the ORM's unit of work. Four things live here
 * and nowhere else:
 *
 * - statements: a `$1, $2, …` text declared once as a module constant, with how named values fill
 *   its placeholders (`statement`), run with `exec` (or a list's text built per filter set, with
 *   `execText`). Every statement is prepared under a name derived from its text, so PostgreSQL
 *   parses and plans it once per connection.
 * - the write transaction (`transaction`, `inTransaction`): one `pg` connection from the ORM's pool
 *   for its length, shared by the ORM's flush and the plain statements, bounded in time, with one
 *   clock (`clock`) for every stamp written in it; and parts of it that may fail on their own
 *   (`savepoint`).
 * - bulk loads: rows in COPY's text form (`copyLine`), streamed by `execCopy` (the request log's
 *   batches: PostgreSQL reads them without parsing a statement or a JSON document per batch).
 * - how rows come back: the `pg` driver's own type parsers, but `timestamptz` read by
 *   `parseTimestamp` (lists read thousands a second).
 *
 * What it relies on of MikroORM (a transaction context, the unit of work's stacks, the commit
 * event) is pinned by driver.test.ts.
 */
import { createHash } from 'node:crypto';
import { finished } from 'node:stream/promises';
import { EventType, TransactionEventBroadcaster } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import pg, { type Pool, type PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { TenantContext } from '../core/context';
import { serviceUnavailable } from '../core/errors';
import { parseTimestamp } from './timestamps';

/**
 * A statement declared once: its text with PostgreSQL's placeholders, and the function that lays
 * its named values out in their order. `R` is the shape of a row it returns.
 */
export interface Statement<R, V> {
  readonly text: string;
  readonly name: string;
  readonly values: (values: V) => unknown[];
  /** Only carries `R` for the type checker. */
  readonly row?: R;
}

/** The prepared-statement name of a text: the same text has the same name in every process. */
const preparedName = (text: string): string =>
  `s_${createHash('sha1').update(text).digest('base64url')}`;

/**
 * A statement for a module constant: `statement<Row, { id: string }>('select … where id = $1',
 * (v) => [v.id])`. Statements without values take `() => []`.
 */
export function statement<R = Record<string, unknown>, V = void>(
  text: string,
  values: (values: V) => unknown[],
): Statement<R, V> {
  return { text, name: preparedName(text), values };
}

/** Where a statement runs: an entity manager (its transaction, else the pool), or `pg` itself. */
export type Runner = EntityManager | Pool | PoolClient;

/**
 * `timestamptz` (oid 1184) by `parseTimestamp`; `date` (oid 1082) as its text, `2026-06-04`, as the
 * ORM maps it (`pg` would make it a `Date` at local midnight); everything else as `pg` reads it.
 */
const TIMESTAMPTZ = 1184;
const DATE = 1082;
const defaultTimestamp = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => unknown;
const readTimestamp = (text: string): unknown => parseTimestamp(text, defaultTimestamp);
const readDate = (text: string): string => text;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    format === 'binary'
      ? pg.types.getTypeParser(oid, format)
      : oid === TIMESTAMPTZ
        ? readTimestamp
        : oid === DATE
          ? readDate
          : pg.types.getTypeParser(oid, 'text')) as typeof pg.types.getTypeParser,
};

/** Runs a statement with its named values; its rows. */
export function exec<R, V>(on: Runner, statement: Statement<R, V>, values: V): Promise<R[]> {
  return send<R>(on, statement.name, statement.text, statement.values(values));
}

/** Runs a statement that finds one row at most; that row, or null. */
export async function execOne<R, V>(
  on: Runner,
  statement: Statement<R, V>,
  values: V,
): Promise<R | null> {
  const [row] = await exec(on, statement, values);
  return row ?? null;
}

/**
 * Runs a text built at run time (a list page: its text depends on the filters used, not on their
 * values), with its values in placeholder order; prepared by its text like any statement.
 */
export function execText<R>(on: Runner, text: string, values: readonly unknown[]): Promise<R[]> {
  return send<R>(on, preparedName(text), text, values);
}

async function send<R>(
  on: Runner,
  name: string,
  text: string,
  values: readonly unknown[],
): Promise<R[]> {
  const client = 'getConnection' in on ? (transactionOf(on)?.client ?? (await poolOf(on))) : on;
  const result = await client.query<R & pg.QueryResultRow>({
    name,
    text,
    values: values as unknown[],
    types,
  });
  return result.rows;
}

/**
 * Runs a text that changes with each use and is run rarely (the request log's DDL, which names a
 * day's partition), unprepared: a prepared statement per text would stay on the connection.
 */
export async function execUnprepared<R>(
  on: Runner,
  text: string,
  values: readonly unknown[] = [],
): Promise<R[]> {
  const client = 'getConnection' in on ? (transactionOf(on)?.client ?? (await poolOf(on))) : on;
  const result = await client.query<R & pg.QueryResultRow>({
    text,
    values: values as unknown[],
    types,
  });
  return result.rows;
}

/**
 * Runs `COPY … FROM STDIN` (`text`, declared once like a statement) with `lines`, the rows as
 * `copyLine` makes them: in the transaction of `on` if it has one, else on a connection of the
 * pool for the COPY alone. A row PostgreSQL refuses fails the whole COPY, which writes nothing.
 */
export async function execCopy(on: Runner, text: string, lines: Buffer | string): Promise<void> {
  if ('getConnection' in on) {
    const held = transactionOf(on)?.client;
    return held ? copyOn(held, text, lines) : copyAlone(await poolOf(on), text, lines);
  }
  return 'release' in on ? copyOn(on, text, lines) : copyAlone(on, text, lines);
}

async function copyAlone(pool: Pool, text: string, lines: Buffer | string): Promise<void> {
  const client = await pool.connect();
  try {
    await copyOn(client, text, lines);
  } catch (error) {
    // Not back into the pool: the COPY may have failed halfway through its stream.
    client.release(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
  client.release();
}

async function copyOn(client: PoolClient, text: string, lines: Buffer | string): Promise<void> {
  const stream = client.query(copyFrom(text));
  stream.end(lines);
  await finished(stream);
}

/** A value COPY's text form takes here. */
export type CopyValue = string | number | boolean | Date | null;

/** What a COPY text value cannot hold as it is: backslash, tab, line breaks, and NUL (dropped). */
const COPY_SPECIALS = /[\\\t\n\r\0]/g;
const COPY_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\0': '',
};
const escapeCopy = (char: string): string => COPY_ESCAPES[char] ?? '';

const copyValue = (value: CopyValue): string =>
  value === null
    ? '\\N'
    : typeof value === 'string'
      ? value.replace(COPY_SPECIALS, escapeCopy)
      : value instanceof Date
        ? value.toISOString()
        : String(value);

/**
 * One row in COPY's text form: its values in the order of the COPY's columns, tab-separated, and a
 * newline. `null` goes as `\N`; a string with its backslashes, tabs and line breaks escaped (and
 * without NUL, which no PostgreSQL text holds); a `Date` in ISO-8601; a number or a boolean as its
 * text.
 */
export const copyLine = (values: readonly CopyValue[]): string =>
  `${values.map(copyValue).join('\t')}\n`;

const PING = statement('select 1', () => []);

/** Whether the database answers a statement. */
export const ping = (on: Runner): Promise<boolean> =>
  exec(on, PING, undefined).then(
    () => true,
    () => false,
  );

const pools = new WeakMap<object, Promise<Pool>>();

/**
 * The ORM's `pg` pool (asked of the ORM once per connection: once the ORM is closed, the same ended
 * pool is returned, where asking again would reconnect).
 */
export function poolOf(em: EntityManager): Promise<Pool> {
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
 * The longest a write transaction may run. Rows are stamped while the transaction runs, not when it
 * commits; a sync checkpoint (`sync_checkpoint`, SYNC_OVERLAP_SECONDS before its walk began) stays
 * safe only while no write commits long after its stamp. A transaction that took longer rolls back
 * instead of committing (a 503; an `Idempotency-Key` retry runs it again).
 */
export const MAX_WRITE_TRANSACTION_MS = 30_000;

/**
 * A transaction in progress: its connection, and its moment. The ORM's entity manager holds it as
 * its transaction context, and sends its flush's statements through `executeQuery`.
 */
export class Transaction {
  readonly client: PoolClient;
  /** The transaction's clock: every stamp it writes (see `clock`). */
  readonly now: Date;

  constructor(client: PoolClient, now: Date) {
    this.client = client;
    this.now = now;
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

/** The commands whose row count `pg` reports as rows written. */
const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** Anything with a transaction context: an entity manager of any driver (the entities' hooks). */
type InTransaction = Pick<EntityManager, 'getTransactionContext'>;

const transactionOf = (em: InTransaction): Transaction | undefined => {
  const context: unknown = em.getTransactionContext();
  return context instanceof Transaction ? context : undefined;
};

/**
 * The clock of every stamp: the moment the transaction of `em` began, the same for each row it
 * writes (the ORM's `createdAt`/`updatedAt`, the statements' `at` values, change records); outside
 * a transaction, now. It is this process's clock, read once per transaction.
 */
export const clock = (em: InTransaction): Date => transactionOf(em)?.now ?? new Date();

/**
 * Runs `work` in a new transaction on one connection of the ORM's pool (`BEGIN` … `COMMIT`), held
 * by a fork of `em` as its transaction context: the ORM's statements and `exec`'s go to that
 * connection, the fork is flushed before the commit (when it holds entities), and after the commit
 * the ORM's `afterTransactionCommit` event is sent (the webhook engine hears of commits by it).
 * The commit is refused past MAX_WRITE_TRANSACTION_MS.
 *
 * Not `em.transactional`: its query builder wraps every statement in layers of its own, copies the
 * event manager and merges the fork back into `em`; services here return what they wrote instead.
 */
export async function transaction<T>(
  em: EntityManager,
  work: (tx: EntityManager) => Promise<T>,
): Promise<T> {
  const tx = em.fork({ clear: false });
  const committed = await onConnection(await poolOf(em), async (client, now) => {
    const context = new Transaction(client, now);
    tx.setTransactionContext(context);
    try {
      const value = await work(tx);
      if (holdsEntities(tx)) await tx.flush();
      return { context, value };
    } finally {
      tx.resetTransactionContext();
    }
  });
  await new TransactionEventBroadcaster(tx).dispatchEvent(
    EventType.afterTransactionCommit,
    committed.context,
  );
  return committed.value;
}

/**
 * The connection of the transaction `em` is in, for what writes beside the ORM and the statements
 * in it (a job added to the queue with the row it is for).
 */
export function transactionClient(em: EntityManager): PoolClient {
  const context = transactionOf(em);
  if (!context) throw new Error('transactionClient: call it inside a transaction');
  return context.client;
}

/**
 * Runs `work` in a read-only REPEATABLE READ transaction on a connection of its own from the pool
 * of `em`: every statement of it sees one snapshot of the database, the one taken at its first
 * statement, however long it runs (an export's read of a whole list). Not bounded in time as
 * writes are: it writes nothing, so no stamp waits on its commit.
 */
export const inSnapshot = async <T>(
  em: EntityManager,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> =>
  onPooledConnection(await poolOf(em), 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', work);

/**
 * Runs `work` in a transaction on one connection of `pool`, bounded as `transaction` is; for code
 * with a pool and no ORM (the webhook engine's thread).
 */
export function onConnection<T>(
  pool: Pool,
  work: (client: PoolClient, now: Date) => Promise<T>,
): Promise<T> {
  const started = performance.now();
  return onPooledConnection(pool, 'BEGIN', async (client) => {
    const value = await work(client, new Date());
    if (performance.now() - started > MAX_WRITE_TRANSACTION_MS) throw serviceUnavailable();
    return value;
  });
}

/** `begin`, then `work`, then COMMIT, on one connection of `pool`; ROLLBACK if anything failed. */
async function onPooledConnection<T>(
  pool: Pool,
  begin: string,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const value = await work(client);
    // PostgreSQL answers COMMIT with ROLLBACK when a statement of the transaction failed.
    const { command } = await client.query('COMMIT');
    if (command !== 'COMMIT') throw new Error(`transaction ended in ${command}, not COMMIT`);
    return value;
  } catch (error) {
    // A failing rollback (the connection is gone) must not hide why the transaction failed; a
    // connection that failed goes back to the pool only to be closed (pg-pool checks).
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Whether a flush could write anything: entities loaded, created or removed. */
function holdsEntities(em: EntityManager): boolean {
  const work = em.getUnitOfWork(false);
  return (
    work.getPersistStack().size > 0 ||
    work.getRemoveStack().size > 0 ||
    work.getOrphanRemoveStack().size > 0 ||
    work.getIdentityMap().values().length > 0
  );
}

/** How many entities the unit of work of `em` has to create or remove at its flush. */
function pendingWrites(em: EntityManager): number {
  const work = em.getUnitOfWork(false);
  return (
    work.getPersistStack().size + work.getRemoveStack().size + work.getOrphanRemoveStack().size
  );
}

/**
 * Runs `work` inside the transaction of `em` under a savepoint: when it throws, what its statements
 * wrote is rolled back (to the savepoint), its row locks are let go, and the transaction goes on
 * as if it had not run (even after a statement of it failed); the error is thrown on. Savepoints
 * nest. A change record written under a savepoint still carries the transaction's own id (what the
 * webhook fan-out orders records by), not the savepoint's.
 *
 * The savepoint covers statements (`exec`), not the ORM's unit of work: entities created or
 * removed in `work` would be written at the commit all the same, so a `work` that fails with such
 * writes pending fails the whole transaction instead.
 */
export async function savepoint<T>(em: EntityManager, work: () => Promise<T>): Promise<T> {
  const context = transactionOf(em);
  if (!context) throw new Error('a savepoint is part of a transaction: call it inside one');
  const pending = pendingWrites(em);
  // One name for all: PostgreSQL's savepoints of one name stack, the newest answering to it.
  await context.client.query('SAVEPOINT part');
  let value: T;
  try {
    value = await work();
  } catch (error) {
    // A rollback that fails (the connection is gone) fails the transaction, not just this part.
    await context.client.query('ROLLBACK TO SAVEPOINT part; RELEASE SAVEPOINT part');
    if (pendingWrites(em) !== pending) {
      throw new Error('a savepoint rolled back entities the unit of work would still write', {
        cause: error,
      });
    }
    throw error;
  }
  await context.client.query('RELEASE SAVEPOINT part');
  return value;
}

/**
 * Runs `work` in a transaction: the caller's, when it is already in one (a service called inside a
 * larger write joins it), or a new one.
 */
export function inTransaction<C extends TenantContext, T>(
  ctx: C,
  work: (tx: C) => Promise<T>,
): Promise<T> {
  if (ctx.em.isInTransaction()) return work(ctx);
  return transaction(ctx.em, (em) => work({ ...ctx, em }));
}
