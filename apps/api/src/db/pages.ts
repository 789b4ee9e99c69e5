import { raw, type EntityManager, type EntityName, type FilterQuery } from '@mikro-orm/postgresql';

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

type Sortable = { createdAt: Date; updatedAt: Date; id: string };

/** The sort key of a row, as one JSON array (timestamps keep their microseconds). */
const SORT_KEY = 'page_sort_key';

/**
 * One page of `entity` rows matching `where`. Lists are ordered by `created_at` then `id` (stable
 * while rows are appended), or by `updated_at` then `id` when syncing with `updated_since`, or by
 * the properties of `order` (the last of them unique). A page reads one row more than it returns,
 * to know whether another follows.
 *
 * The rows are plain objects with the entity's property names and types, not managed entities:
 * a list only serialises them, and skipping the identity map and entity construction halves the
 * cost of a list request (see bench/README.md).
 */
export async function findPage<T extends Sortable>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  request: PageRequest & { updated_since?: Date | undefined },
  order?: readonly (keyof T & string)[],
): Promise<Page<T>> {
  const keys = order ?? (request.updated_since ? ['updatedAt', 'id'] : ['createdAt', 'id']);
  const { properties } = em.getMetadata().get(entity);
  const columns = keys.map(
    (key) => `"${properties[key as keyof typeof properties].fieldNames[0]}"`,
  );
  const orderBy = Object.fromEntries(keys.map((key) => [key, 'asc']));

  const rows = em
    .createQueryBuilder(entity)
    .select(['*', raw(`json_build_array(${columns.join(', ')}) as "${SORT_KEY}"`)])
    .where(where as never)
    .orderBy(orderBy as never)
    .limit(request.limit + 1);
  if (request.after) {
    if (request.after.length !== keys.length) throw new Error('sort key of another order');
    rows.andWhere(`(${columns.join(', ')}) > (${columns.map(() => '?').join(', ')})`, [
      ...request.after,
    ]);
  } else {
    rows.offset((request.page - 1) * request.limit);
  }
  // The page and the count run side by side, on two connections: on a large organisation the
  // count reads every match, and waiting for both at once is what a client paging notices.
  const count = request.count
    ? em
        .createQueryBuilder(entity)
        .count()
        .where(where as never)
        .execute<{ count: string | number }>('get', false)
    : undefined;
  const [found, counted] = await Promise.all([
    rows.execute<(T & { [SORT_KEY]: SortValue[] })[]>('all', true),
    count,
  ]);
  const more = found.length > request.limit;
  const data = more ? found.slice(0, request.limit) : found;
  return {
    data,
    total: counted === undefined ? undefined : Number(counted.count),
    nextAfter: more ? data[data.length - 1]![SORT_KEY] : undefined,
  };
}
