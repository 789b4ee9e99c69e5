import { EventType, TransactionEventBroadcaster } from '@mikro-orm/core';
import {
  LockMode,
  type EntityManager,
  type EntityName,
  type FilterQuery,
} from '@mikro-orm/postgresql';
import type { TenantContext } from '../core/context';
import { notFound, serviceUnavailable } from '../core/errors';
import { looksLikeId, type IdKind } from '../core/ids';
import { isoTime } from '../core/iso-time';
import { pgPool, PoolTransaction } from './sql';

/**
 * The longest a write transaction may run. Rows are stamped (`updated_at`) while the transaction
 * runs, not when it commits; a sync checkpoint (`sync_checkpoint`, SYNC_OVERLAP_SECONDS before
 * its walk began) stays safe only while no write commits long after its stamp. A transaction that
 * took longer rolls back instead of committing (a 503; an `Idempotency-Key` retry runs it again).
 */
export const MAX_WRITE_TRANSACTION_MS = 30_000;

/**
 * Runs `work` in a new transaction that commits only within MAX_WRITE_TRANSACTION_MS.
 *
 * The transaction is a connection taken from the ORM's `pg` pool for its length (`BEGIN` …
 * `COMMIT`), held by a fork of the entity manager as its transaction context (`PoolTransaction`):
 * the ORM's statements and `run`'s plain SQL go to that connection, the fork is flushed before the
 * commit (when it holds entities), and after it the ORM's `afterTransactionCommit` event is sent
 * (the webhook engine hears of commits by it; nothing here listens to the ORM's other transaction
 * events). What `em.transactional` does besides, this path does not need, and it cost more per
 * write than the write's own statements (bench/README.md): its query builder's transaction
 * machinery around every statement, a copy of the event manager per transaction, an async-context
 * scope, transaction propagation, and merging the fork's entities back into the request's entity
 * manager. Nothing reads a transaction's entities through the request's entity manager afterwards:
 * services return what they wrote.
 */
export async function boundedTransaction<T>(
  em: EntityManager,
  work: (tx: EntityManager) => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const client = await (await pgPool(em)).connect();
  const tx = transactionManager(em);
  const transaction = new PoolTransaction(client);
  let result: { value: T };
  try {
    await client.query('BEGIN');
    tx.setTransactionContext(transaction);
    result = { value: await work(tx) };
    if (holdsEntities(tx)) await tx.flush();
    if (performance.now() - started > MAX_WRITE_TRANSACTION_MS) throw serviceUnavailable();
    // PostgreSQL answers COMMIT with ROLLBACK when a statement of the transaction failed.
    const { command } = await client.query('COMMIT');
    if (command !== 'COMMIT') throw new Error(`transaction ended in ${command}, not COMMIT`);
  } catch (error) {
    // A failing rollback (the connection is gone) must not hide why the transaction failed. A
    // connection that failed goes back to the pool only to be closed (pg-pool checks).
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    tx.resetTransactionContext();
    client.release();
  }
  await new TransactionEventBroadcaster(tx).dispatchEvent(
    EventType.afterTransactionCommit,
    transaction,
  );
  keepForNext(em, tx);
  return result.value;
}

/** The most entity managers kept for later transactions per ORM (a few more than the pool's size). */
const MAX_SPARE_MANAGERS = 32;
/** Per ORM (its root entity manager): transaction entity managers that ended holding nothing. */
const spareManagers = new WeakMap<EntityManager, EntityManager[]>();

/**
 * The entity manager a transaction works in: a fork of `em` that starts with what `em` holds, as
 * `em.transactional` makes. Forked from the ORM's root entity manager (which holds nothing), a
 * fork that ended an earlier transaction holding nothing is taken again instead: such a fork is
 * in the state a new one starts in, and making one costs MikroORM a dozen objects (a unit of
 * work, an identity map, an entity factory and loader, copies of the filters and the logger
 * context) and two writes to `process.env`, about 20 µs of a check-in's CPU under load
 * (bench/README.md).
 */
function transactionManager(em: EntityManager): EntityManager {
  return (em.global ? spareManagers.get(em)?.pop() : undefined) ?? em.fork({ clear: false });
}

/** Keeps a transaction's entity manager for the next one, when it holds nothing (see above). */
function keepForNext(em: EntityManager, tx: EntityManager): void {
  if (!em.global || holdsEntities(tx)) return;
  let spare = spareManagers.get(em);
  if (!spare) spareManagers.set(em, (spare = []));
  if (spare.length < MAX_SPARE_MANAGERS) spare.push(tx);
}

/**
 * Whether a flush could write anything: entities loaded, created or removed. The busiest writes
 * (a check-in) are plain statements, and an empty flush still costs three ORM events and an async
 * context of its own.
 */
function holdsEntities(em: EntityManager): boolean {
  const work = em.getUnitOfWork(false);
  return (
    work.getPersistStack().size > 0 ||
    work.getRemoveStack().size > 0 ||
    work.getOrphanRemoveStack().size > 0 ||
    work.getIdentityMap().values().length > 0
  );
}

/**
 * Runs `work` in a transaction: the caller's, when it is already in one (so a service called
 * inside a larger write joins it, instead of opening a savepoint), or a new bounded one.
 */
export function inTransaction<C extends TenantContext, T>(
  ctx: C,
  work: (tx: C) => Promise<T>,
): Promise<T> {
  if (ctx.em.isInTransaction()) return work(ctx);
  return boundedTransaction(ctx.em, (em) => work({ ...ctx, em }));
}

export const iso: (date: Date) => string = isoTime;
export const isoOrNull = (date: Date | null | undefined): string | null =>
  date ? isoTime(date) : null;

/** Escapes LIKE wildcards so user text matches literally. */
export const likeEscape = (text: string): string => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

type Owned = { id: string; organisationId: string };

/**
 * The tenant's row with this id, or null: another organisation's row is as absent as a missing
 * one. Ids of another kind are not looked up at all. `lock` holds a row lock (`FOR UPDATE`) until
 * the surrounding transaction ends.
 */
export async function findOwned<T extends Owned>(
  ctx: TenantContext,
  entity: EntityName<T>,
  kind: IdKind,
  id: string,
  options: { lock?: boolean } = {},
): Promise<T | null> {
  if (!looksLikeId(kind, id)) return null;
  const where = { id, organisationId: ctx.organisationId } as FilterQuery<T>;
  return ctx.em.findOne(
    entity,
    where as never,
    options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
}

/** Like `findOwned`, but a 404 naming `label` (`"ticket tier not found"`) instead of null. */
export async function getOwned<T extends Owned>(
  ctx: TenantContext,
  entity: EntityName<T>,
  kind: IdKind,
  label: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<T> {
  const found = await findOwned(ctx, entity, kind, id, options);
  if (!found) throw notFound(label);
  return found;
}
