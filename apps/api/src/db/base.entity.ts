import { defineEntity, p, type EntityManager } from '@mikro-orm/core';
import { newId, type IdKind } from '../core/ids';
import { clock } from './driver';

/**
 * The stamps of every row the ORM writes, in one place, from the transaction's clock (`clock`,
 * db/driver.ts). `em.create` runs `onCreate` at once (the ORM's `processOnCreateHooksEarly`, set
 * in `ormConfig`), so a new entity has its id and timestamps before the flush; `onUpdate` runs at
 * the flush that changes a row. A value the code
 * sets itself is kept: history written at its own time (orders placed in the past, a
 * cancellation at its time) and a payout last changed when it was paid.
 */
export const CreatedSchema = defineEntity({
  name: 'CreatedEntity',
  abstract: true,
  properties: {
    createdAt: p.datetime().onCreate((_row, em) => clock(em)),
  },
});
export abstract class CreatedEntity extends CreatedSchema.class {}
CreatedSchema.setClass(CreatedEntity);

/** The clock, unless the code set `updatedAt` since the row was read or last flushed. */
function updatedNow(row: { updatedAt: Date }, em: EntityManager): Date {
  const stored = em.getUnitOfWork().getOriginalEntityData(row)?.updatedAt;
  const setByCode =
    stored != null && new Date(stored as string | Date).getTime() !== row.updatedAt.getTime();
  return setByCode ? row.updatedAt : clock(em);
}

export const BaseSchema = defineEntity({
  name: 'BaseEntity',
  abstract: true,
  extends: CreatedEntity,
  properties: {
    // A new row was last changed when it was created.
    updatedAt: p
      .datetime()
      .onCreate((row: { createdAt?: Date }, em) => row.createdAt ?? clock(em))
      .onUpdate(updatedNow),
  },
});
export abstract class BaseEntity extends BaseSchema.class {}
BaseSchema.setClass(BaseEntity);

/**
 * A primary key `<prefix>_…` (see `core/ids`), made when the entity is created: it carries the
 * creation time given to the row, if any, so ids sort as rows were created.
 */
export const primaryId = (kind: IdKind) =>
  p
    .text()
    .primary()
    .collation('C')
    .onCreate((row: { createdAt?: Date }) => newId(kind, row.createdAt));

/** The list orders a tenant table has an index for, within its organisation. */
type ListOrder = 'created' | 'updated';
type ListKey = 'id' | 'organisationId' | 'createdAt' | 'updatedAt';
type TableIndex<Key> = { name: string; properties: (Key | ListKey)[] };

/**
 * An entity of one organisation's rows: a `BaseEntity` with an id of `idKind` and the
 * `organisationId` it belongs to, and the indexes its list pages read, named after the table:
 * `<table>_org_created_index` (by creation, the lists' default order) and
 * `<table>_org_updated_index` (by last change, for `updated_since` syncs). `listedBy` names the
 * ones the table has, both by default; `indexes` and `uniques` add its own.
 */
export function defineTenantEntity<
  const TName extends string,
  const TTableName extends string,
  const TProperties extends Record<string, unknown>,
>(meta: {
  name: TName;
  tableName: TTableName;
  idKind: IdKind;
  listedBy?: readonly ListOrder[];
  indexes?: TableIndex<keyof TProperties>[];
  uniques?: TableIndex<keyof TProperties>[];
  properties: TProperties;
}) {
  const { idKind, listedBy = ['created', 'updated'], indexes = [], properties, ...table } = meta;
  const listIndexes = listedBy.map((order): TableIndex<never> => ({
    name: `${table.tableName}_org_${order}_index`,
    properties: ['organisationId', order === 'created' ? 'createdAt' : 'updatedAt', 'id'],
  }));
  return defineEntity({
    ...table,
    extends: BaseEntity,
    // Checked against the properties above; `defineEntity` cannot see into the generic ones.
    indexes: [...listIndexes, ...indexes] as never,
    properties: { id: primaryId(idKind), organisationId: p.text(), ...properties },
  });
}
