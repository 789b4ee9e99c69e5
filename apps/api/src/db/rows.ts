import type { EntityManager, EntityName } from '@mikro-orm/postgresql';

interface RowShape {
  /** `"col" as "prop", …` for a select or `returning` list. */
  columns: string;
  /** Properties held as `Date` (PostgreSQL sends timestamps as text; see the ORM's type parsers). */
  dates: string[];
}

const shapes = new WeakMap<object, Map<unknown, RowShape>>();

function shapeOf(em: EntityManager, entity: EntityName<object>): RowShape {
  const metadata = em.getMetadata();
  let perOrm = shapes.get(metadata);
  if (!perOrm) {
    perOrm = new Map();
    shapes.set(metadata, perOrm);
  }
  let shape = perOrm.get(entity);
  if (!shape) {
    const props = Object.values<{ name: string; fieldNames: string[]; runtimeType: string }>(
      metadata.get(entity).properties,
    );
    shape = {
      columns: props.map((prop) => `"${prop.fieldNames[0]}" as "${prop.name}"`).join(', '),
      dates: props.filter((prop) => prop.runtimeType === 'Date').map((prop) => prop.name),
    };
    perOrm.set(entity, shape);
  }
  return shape;
}

/**
 * The entity's columns named as its properties, for the hot paths that write plain SQL and still
 * need the row as the entity's type (`select ${columnsOf(em, Ticket)} from tickets …`, or a
 * `returning` list). Derived from the entity's metadata, so it never drifts from the entity.
 */
export const columnsOf = <T extends object>(em: EntityManager, entity: EntityName<T>): string =>
  shapeOf(em, entity as EntityName<object>).columns;

/** The entity's properties held as `Date`, which a row selected with `columnsOf` has as text. */
export const datesOf = <T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
): readonly string[] => shapeOf(em, entity as EntityName<object>).dates;

/** A row selected with `columnsOf`, as the entity's plain type (timestamps as `Date`). */
export function fromRow<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  row: Record<string, unknown>,
): T {
  const out: Record<string, unknown> = { ...row };
  for (const name of shapeOf(em, entity as EntityName<object>).dates) {
    const value = out[name];
    if (value !== null && value !== undefined && !(value instanceof Date)) {
      out[name] = new Date(value as string);
    }
  }
  return out as T;
}
