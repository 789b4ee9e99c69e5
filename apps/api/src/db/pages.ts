import type { EntityManager, EntityMetadata, EntityName } from '@mikro-orm/postgresql';
import type { PoolClient } from 'pg';
import { execText, execUnprepared } from './driver';

/**
 * Where a page starts: by number (`offset` pages), or right after a sort key (`after`, a cursor
 * page: the key of the previous page's last row, so its cost does not grow with depth).
 */
export interface PageRequest {
  limit: number;
  /** 1-based; with `after`, only the number the page is given. */
  page: number;
  after?: readonly SortValue[] | undefined;
  /** Count every match too (cursor pages carry the count of their walk's first page instead). */
  count: boolean;
}

/** One value of a row's sort key: a timestamp as PostgreSQL writes it in JSON, a number, an id. */
export type SortValue = string | number;

export interface Page<T> {
  data: T[];
  /** Every match, when the request asked for the count. */
  total: number | undefined;
  /** The sort key of the last row, when more rows follow it. */
  nextAfter: SortValue[] | undefined;
}

/** A row a list can page: its stamps and id are its sort keys. */
export type Sortable = { createdAt: Date; updatedAt: Date; id: string };

/** The sort key of a row, as one JSON array (timestamps keep their microseconds). */
const SORT_KEY = 'page_sort_key';

/**
 * What a list filters on: properties of the entity, each equal to a value or compared with the
 * operators lists use. Lists filter their own organisation's rows by plain columns only, so this
 * is all the SQL a filter needs, compiled by `findPage` straight into its statement.
 */
export type ListFilter<T> = { [K in keyof T]?: T[K] | ListCondition<T[K]> };

export interface ListCondition<V> {
  $in?: readonly V[];
  $gt?: V;
  $gte?: V;
  $lt?: V;
  /** An `ilike` pattern: escape what the client sent with `likeEscape`. */
  $ilike?: string;
}

const COMPARISONS: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $ilike: 'ilike' };

/** Escapes LIKE wildcards so user text matches literally (for an `$ilike` filter). */
export const likeEscape = (text: string): string => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** The statement's `where`: `$n` placeholders, their values appended to `params`. */
function whereSql(meta: EntityMetadata, where: Record<string, unknown>, params: unknown[]): string {
  const conditions: string[] = [];
  const placeholder = (value: unknown) => `$${params.push(value)}`;
  for (const [property, value] of Object.entries(where)) {
    if (value === undefined) continue;
    const column = columnOf(meta, property);
    if (value === null) {
      conditions.push(`${column} is null`);
    } else if (typeof value === 'object' && !(value instanceof Date)) {
      for (const [operator, operand] of Object.entries(value)) {
        if (operand === undefined) continue;
        if (operator === '$in') {
          conditions.push(`${column} = any(${placeholder(operand)})`);
        } else if (operator in COMPARISONS) {
          conditions.push(`${column} ${COMPARISONS[operator]} ${placeholder(operand)}`);
        } else {
          throw new Error(`list filter on ${property}: unknown operator ${operator}`);
        }
      }
    } else {
      conditions.push(`${column} = ${placeholder(value)}`);
    }
  }
  return conditions.length > 0 ? conditions.join(' and ') : 'true';
}

/** The entity's columns named as its properties: `"organisation_id" as "organisationId", …`. */
const selectList = (meta: EntityMetadata): string =>
  Object.values(meta.properties)
    .map((prop) => `"${prop.fieldNames[0]}" as "${prop.name}"`)
    .join(', ');

function columnOf(meta: EntityMetadata, property: string): string {
  const column = meta.properties[property]?.fieldNames[0];
  if (!column) throw new Error(`${meta.className} has no column for ${property}`);
  return `"${column}"`;
}

/** The number a `select count(*)` read: its one row always comes back. */
function countOf(rows: { count: string }[]): number {
  const [row] = rows;
  if (!row) throw new Error('select count(*) returned no row');
  return Number(row.count);
}

/**
 * What a list reads, whatever its page: the table, the filters' `where`, and the order (the last
 * key unique). A list's page (`findPage`) and an export of the whole list (`streamRows`) read the
 * same rows in the same order.
 */
export interface ListRows<T extends Sortable> {
  entity: EntityName<T>;
  where: ListFilter<T>;
  order: readonly (keyof T & string)[];
}

/** The lists' default order: by creation, or by last change when syncing with `updated_since`. */
export const listOrder = <T extends Sortable>(filters: {
  updated_since?: Date | undefined;
}): (keyof T & string)[] => (filters.updated_since ? ['updatedAt', 'id'] : ['createdAt', 'id']);

/**
 * Every row of a list, in its order, in batches of `batchSize`: read through a cursor (`DECLARE …
 * CURSOR`, then `FETCH`) in the transaction `client` is in, so the rows are those of its snapshot
 * and never all in memory. The rows are shaped as `findPage`'s.
 */
export async function* streamRows<T extends Sortable>(
  em: EntityManager,
  client: PoolClient,
  rows: ListRows<T>,
  batchSize: number,
): AsyncGenerator<T[]> {
  const meta = em.getMetadata().get(rows.entity) as EntityMetadata;
  const params: unknown[] = [];
  const filter = whereSql(meta, rows.where, params);
  const order = rows.order.map((key) => `${columnOf(meta, key)} asc`).join(', ');
  // Unprepared: a cursor's statement cannot be a named prepared statement.
  await execUnprepared(
    client,
    `declare list_rows no scroll cursor for
       select ${selectList(meta)} from "${meta.tableName}" where ${filter} order by ${order}`,
    params,
  );
  const fetch = `fetch forward ${Math.trunc(batchSize)} from list_rows`;
  for (;;) {
    const batch = await execUnprepared<T>(client, fetch);
    if (batch.length === 0) break;
    yield batch;
    if (batch.length < batchSize) break;
  }
  await execUnprepared(client, 'close list_rows');
}

/**
 * One page of `entity` rows matching `where`, ordered by the properties of `order` (the last of
 * them unique; `listOrder` gives the lists' usual one). A page reads one row more than it returns,
 * to know whether another follows.
 *
 * The statements are written here and run by the driver (prepared: their texts depend on the
 * filters used, not on their values or the page), not by the ORM's query builder: a list is the
 * most frequent request. The rows are plain objects of the entity's type, not managed entities: a
 * list only serialises them. Never inside a transaction (the page and its count run side by side,
 * on whichever pooled connections are free).
 */
export async function findPage<T extends Sortable>(
  em: EntityManager,
  entity: EntityName<T>,
  where: ListFilter<T>,
  request: PageRequest,
  keys: readonly (keyof T & string)[],
): Promise<Page<T>> {
  const meta = em.getMetadata().get(entity) as EntityMetadata;
  const sortColumnList = keys.map((key) => columnOf(meta, key));
  const sortColumns = sortColumnList.join(', ');
  const table = `"${meta.tableName}"`;

  const params: unknown[] = [];
  const filter = whereSql(meta, where, params);
  // The page and the count run side by side, on two connections: on a large organisation the
  // count reads every match, and waiting for both at once is what a client paging notices.
  const count = request.count
    ? execText<{ count: string }>(
        em,
        `select count(*) as count from ${table} where ${filter}`,
        params,
      )
    : undefined;
  let pageSql = `select ${selectList(meta)}, json_build_array(${sortColumns}) as "${SORT_KEY}"
                   from ${table} where ${filter}`;
  const pageParams = [...params];
  if (request.after) {
    if (request.after.length !== keys.length) throw new Error('sort key of another order');
    const after = request.after.map((value) => `$${pageParams.push(value)}`);
    pageSql += ` and (${sortColumns}) > (${after.join(', ')})`;
  }
  // The bounds are values too: one text per kind of list, prepared once per connection.
  pageSql += ` order by ${sortColumnList.map((column) => `${column} asc`).join(', ')}
               limit $${pageParams.push(request.limit + 1)}`;
  if (!request.after) pageSql += ` offset $${pageParams.push((request.page - 1) * request.limit)}`;
  const read = execText<T & { [SORT_KEY]: SortValue[] }>(em, pageSql, pageParams);
  const [found, counted] = await Promise.all([read, count]);
  const more = found.length > request.limit;
  const data = more ? found.slice(0, request.limit) : found;
  return {
    data,
    total: counted === undefined ? undefined : countOf(counted),
    nextAfter: more ? data.at(-1)?.[SORT_KEY] : undefined,
  };
}
