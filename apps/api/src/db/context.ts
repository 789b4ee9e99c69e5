import {
  LockMode,
  type EntityManager,
  type EntityName,
  type FilterQuery,
  type QueryOrderMap,
} from '@mikro-orm/postgresql';
import type { TenantContext } from '../core/context';
import { notFound } from '../core/errors';
import { looksLikeId, type IdKind } from '../core/ids';

/**
 * Runs `work` in a transaction: the caller's, when it is already in one (so a service called
 * inside a larger write joins it, instead of opening a savepoint), or a new one.
 */
export function inTransaction<C extends TenantContext, T>(
  ctx: C,
  work: (tx: C) => Promise<T>,
): Promise<T> {
  if (ctx.em.isInTransaction()) return work(ctx);
  return ctx.em.transactional((em) => work({ ...ctx, em }));
}

export const iso = (date: Date): string => date.toISOString();
export const isoOrNull = (date: Date | null | undefined): string | null =>
  date ? date.toISOString() : null;

export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  limit: number;
}

export interface PageRequest {
  page: number;
  limit: number;
}

/** Escapes LIKE wildcards so user text matches literally. */
export const likeEscape = (text: string): string => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

type Ordered = { createdAt: Date; updatedAt: Date; id: string };

/**
 * One page of `entity` rows matching `where`, with the total. Lists are ordered by `created_at`
 * then `id` (stable while rows are appended), or by `updated_at` then `id` when syncing with
 * `updated_since`.
 *
 * The rows are plain objects with the entity's property names and types, not managed entities:
 * a list only serialises them, and skipping the identity map and entity construction halves the
 * cost of a list request (see bench/README.md).
 */
export async function findPage<T extends Ordered>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  page: PageRequest & { updated_since?: Date },
  orderBy?: QueryOrderMap<T>,
): Promise<Page<T>> {
  const order =
    orderBy ??
    ((page.updated_since
      ? { updatedAt: 'asc', id: 'asc' }
      : { createdAt: 'asc', id: 'asc' }) as unknown as QueryOrderMap<T>);
  // The page and the count run side by side, on two connections: on a large organisation each
  // takes a while (the count reads every match, a deep page skips `offset` index entries), and
  // waiting for both at once is what a client paging through it notices.
  const rows = em
    .createQueryBuilder(entity)
    .select('*')
    .where(where as never)
    .orderBy(order as never)
    .limit(page.limit)
    .offset((page.page - 1) * page.limit)
    .execute<T[]>('all', true);
  const count = em
    .createQueryBuilder(entity)
    .count()
    .where(where as never)
    .execute<{ count: string | number }>('get', false);
  const [data, { count: total }] = await Promise.all([rows, count]);
  return { data, total: Number(total), page: page.page, limit: page.limit };
}

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
