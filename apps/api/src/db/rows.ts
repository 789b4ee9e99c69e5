import type { EntityManager, EntityName } from '@mikro-orm/postgresql';

interface RowShape {
  /** `"col" as "prop", …` for a select or `returning` list. */
  columns: string;
  /** Properties held as `Date` (PostgreSQL sends timestamps as text; see the ORM's type parsers). */
  dates: string[];
  /** The ORM's reading of a timestamp's text, for the shapes `parseTimestamp` leaves to it. */
  parseDate: (text: string) => unknown;
}

/** What is worked out once per ORM (its metadata) and kept: entities' row shapes, statement texts. */
const perOrm = new WeakMap<object, Map<unknown, unknown>>();

/**
 * The value kept under `key` for this ORM, made by `make(em, key)` the first time. `make` is a
 * module's function, not a closure: the hot paths (a row read, a statement run) ask for each call.
 */
function keptFor<K, V>(em: EntityManager, key: K, make: (em: EntityManager, key: K) => V): V {
  const metadata = em.getMetadata();
  let kept = perOrm.get(metadata);
  if (!kept) {
    kept = new Map();
    perOrm.set(metadata, kept);
  }
  let value = kept.get(key) as V | undefined;
  if (value === undefined) {
    value = make(em, key);
    kept.set(key, value);
  }
  return value;
}

function makeShape(em: EntityManager, entity: EntityName<object>): RowShape {
  const props = Object.values<{ name: string; fieldNames: string[]; runtimeType: string }>(
    em.getMetadata().get(entity).properties,
  );
  const platform = em.getPlatform();
  return {
    columns: props.map((prop) => `"${prop.fieldNames[0]}" as "${prop.name}"`).join(', '),
    dates: props.filter((prop) => prop.runtimeType === 'Date').map((prop) => prop.name),
    parseDate: (text) => platform.parseDate(text),
  };
}

const shapeOf = (em: EntityManager, entity: EntityName<object>): RowShape =>
  keptFor(em, entity, makeShape);

/**
 * The entity's columns named as its properties, for the hot paths that write plain SQL and still
 * need the row as the entity's type (`select ${columnsOf(em, Ticket)} from tickets …`, or a
 * `returning` list). Derived from the entity's metadata, so it never drifts from the entity.
 */
export const columnsOf = <T extends object>(em: EntityManager, entity: EntityName<T>): string =>
  shapeOf(em, entity as EntityName<object>).columns;

const runBuild = (em: EntityManager, build: (em: EntityManager) => string) => build(em);

/**
 * A statement text that names entities' columns (`columnsOf`), built by `build` once per ORM and
 * the same string at every call after. `run` (db/sql.ts) finds a statement's prepared form by its
 * text: a text composed anew at each call is copied and hashed whole at each run (a check-in's
 * statements are 2 KB of text), one built once is found at a glance. `build` must be declared
 * once (a module's function), not made per call: it is the key.
 */
export const fixedText = (em: EntityManager, build: (em: EntityManager) => string): string =>
  keptFor(em, build, runBuild);

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

/**
 * A row selected with `columnsOf`, as the entity's plain type: its timestamps, which PostgreSQL
 * sends as text, become `Date`s in place.
 */
export function fromRow<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  row: Record<string, unknown>,
): T {
  const { dates, parseDate } = shapeOf(em, entity as EntityName<object>);
  for (const name of dates) {
    const value = row[name];
    if (typeof value === 'string') row[name] = parseTimestamp(value, parseDate);
  }
  return row as T;
}
