import { LockMode, type EntityName, type FilterQuery } from '@mikro-orm/postgresql';
import type { TenantContext } from '../core/context';
import { notFound } from '../core/errors';
import { looksLikeId, type IdKind } from '../core/ids';

type Owned = { id: string; organisationId: string };

/** A row lock held until the transaction ends: `true` is `FOR UPDATE`, `'share'` `FOR SHARE`. */
export type Lock = boolean | 'share';

const LOCK_MODES = {
  update: LockMode.PESSIMISTIC_WRITE,
  share: LockMode.PESSIMISTIC_READ,
} as const;

/**
 * The tenant's row with this id, or null: another organisation's row is as absent as a missing
 * one. Ids of another kind are not looked up at all. `lock` holds a row lock until the surrounding
 * transaction ends: `FOR UPDATE` (`true`), or `FOR SHARE` (`'share'`: others may share it, nobody
 * may change the row meanwhile).
 */
export async function findOwned<T extends Owned>(
  ctx: TenantContext,
  entity: EntityName<T>,
  kind: IdKind,
  id: string,
  options: { lock?: Lock } = {},
): Promise<T | null> {
  if (!looksLikeId(kind, id)) return null;
  const where = { id, organisationId: ctx.organisationId } as FilterQuery<T>;
  // Outside a transaction `ctx.em` may be the ORM's own (an API request's, see app.ts), which
  // reads only through a fork.
  const em = ctx.em.isInTransaction() ? ctx.em : ctx.em.fork();
  return em.findOne(
    entity,
    where as never,
    options.lock ? { lockMode: LOCK_MODES[options.lock === 'share' ? 'share' : 'update'] } : {},
  );
}

/** Like `findOwned`, but a 404 naming `label` (`"ticket tier not found"`) instead of null. */
export async function getOwned<T extends Owned>(
  ctx: TenantContext,
  entity: EntityName<T>,
  kind: IdKind,
  label: string,
  id: string,
  options: { lock?: Lock } = {},
): Promise<T> {
  const found = await findOwned(ctx, entity, kind, id, options);
  if (!found) throw notFound(label);
  return found;
}

/** Deletes every row of the tenant's in `entity`'s table (a test environment's reset); how many. */
export const deleteAllOwned = <T extends Owned>(
  ctx: TenantContext,
  entity: EntityName<T>,
): Promise<number> =>
  ctx.em.nativeDelete(entity, { organisationId: ctx.organisationId } as FilterQuery<T>);
