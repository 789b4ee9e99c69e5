import {
  raw,
  type EntityManager,
  type EntityMetadata,
  type EntityName,
  type FilterQuery,
  ReferenceKind,
} from '@mikro-orm/postgresql';

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

/** The number written by the ASCII digits of `text[start, end)`, or NaN if any is not a digit. */
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * A `timestamptz` as PostgreSQL sends it to a UTC session (`2026-11-23 14:05:09.123456+00`), read
 * as a `Date` from its fixed positions rather than by a general date parser (lists read thousands
 * a second); anything else, such as years before 1 or after 9999, by `fallback`.
 */
export function parseTimestamp(text: string, fallback: (text: string) => unknown): unknown {
  const length = text.length;
  const fraction = length - 3 - 20; // characters after the seconds' `.`, before `+00`
  const shaped =
    (length === 22 || (fraction >= 1 && fraction <= 6 && text.charCodeAt(19) === 46)) &&
    text.endsWith('+00') &&
    text.charCodeAt(4) === 45 &&
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 32 &&
    text.charCodeAt(13) === 58 &&
    text.charCodeAt(16) === 58;
  if (!shaped) return fallback(text);
  const year = digits(text, 0, 4);
  // Milliseconds: the first three digits of the fraction (`.5` is 500), the rest checked only.
  let ms = 0;
  for (let i = 0; i < 3; i++) ms = ms * 10 + (i < fraction ? digits(text, 20 + i, 21 + i) : 0);
  if (fraction > 3 && Number.isNaN(digits(text, 23, 20 + fraction))) return fallback(text);
  const time = Date.UTC(
    year,
    digits(text, 5, 7) - 1,
    digits(text, 8, 10),
    digits(text, 11, 13),
    digits(text, 14, 16),
    digits(text, 17, 19),
    ms,
  );
  if (Number.isNaN(time)) return fallback(text);
  const date = new Date(time);
  // Date.UTC reads years 0–99 as 1900–1999.
  if (year < 100) date.setUTCFullYear(year);
  return date;
}

/** Scalars the driver already delivers as the entity holds them. */
const AS_DELIVERED = new Set(['string', 'number', 'boolean']);

type RowMapper = (raw: Record<string, unknown>) => Record<string, unknown>;
const rowMappers = new WeakMap<EntityMetadata, RowMapper | null>();

/**
 * Maps a raw row (column names, timestamps as text) to the entity's property names and types, as
 * the ORM's own mapping does, for entities of plain columns; null for any other entity, which
 * the ORM then maps.
 */
function rowMapper(em: EntityManager, meta: EntityMetadata): RowMapper | null {
  let mapper = rowMappers.get(meta);
  if (mapper !== undefined) return mapper;
  const fields: [property: string, column: string, timestamp: boolean][] = [];
  let plain = true;
  for (const prop of meta.props) {
    if (prop.persist === false) continue;
    const timestamp = prop.runtimeType === 'Date';
    const simple =
      prop.kind === ReferenceKind.SCALAR &&
      prop.fieldNames.length === 1 &&
      !prop.customType &&
      (timestamp || AS_DELIVERED.has(prop.runtimeType) || prop.type === 'date');
    if (!simple) plain = false;
    fields.push([prop.name, prop.fieldNames[0]!, timestamp]);
  }
  const platform = em.getPlatform();
  const fallback = (text: string) => platform.parseDate(text);
  mapper = plain
    ? (raw) => {
        const row: Record<string, unknown> = {};
        for (const [property, column, timestamp] of fields) {
          const value = raw[column];
          row[property] =
            timestamp && typeof value === 'string' ? parseTimestamp(value, fallback) : value;
        }
        row[SORT_KEY] = raw[SORT_KEY];
        return row;
      }
    : null;
  rowMappers.set(meta, mapper);
  return mapper;
}

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
  const meta = em.getMetadata().get(entity);
  const { properties } = meta;
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
  const mapper = rowMapper(em, meta as EntityMetadata);
  const read = mapper
    ? rows.execute<Record<string, unknown>[]>('all', false).then((raws) => raws.map(mapper))
    : rows.execute<Record<string, unknown>[]>('all', true);
  const [found, counted] = (await Promise.all([read, count])) as [
    (T & { [SORT_KEY]: SortValue[] })[],
    { count: string | number } | undefined,
  ];
  const more = found.length > request.limit;
  const data = more ? found.slice(0, request.limit) : found;
  return {
    data,
    total: counted === undefined ? undefined : Number(counted.count),
    nextAfter: more ? data[data.length - 1]![SORT_KEY] : undefined,
  };
}
