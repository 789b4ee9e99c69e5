import { EXPORT_ROW_SCHEMAS, type ExportFormat, type ExportResource } from '@boxoffice/contract';
import type { z } from 'zod';

/**
 * How an export writes its rows, each the object as the list renders it.
 *
 * - NDJSON: one object per line, `\n` after each.
 * - CSV (RFC 4180): a header row, then one row per object, every line ended by CRLF. The columns
 *   are the resource's fields in the contract's order; a nested object's fields become columns of
 *   their own, named with dots (`buyer.name`); an array, or an object of no known fields, is one
 *   cell of JSON text; `null` is an empty cell; `true`/`false`, numbers and text as they are. A
 *   cell holding a comma, a quote, CR or LF is quoted, its quotes doubled.
 */

/** A column of a CSV file: its name, and the path of the value in the object. */
interface Column {
  name: string;
  path: readonly string[];
}

/** The object schema inside optional/nullable/default/effects wrappers, or undefined. */
function objectShape(schema: z.ZodTypeAny): z.ZodRawShape | undefined {
  let inner: z.ZodTypeAny = schema;
  for (;;) {
    const def = inner._def as {
      typeName?: string;
      innerType?: z.ZodTypeAny;
      schema?: z.ZodTypeAny;
    };
    if (def.typeName === 'ZodObject') {
      const shape: z.ZodRawShape = (inner as z.ZodObject<z.ZodRawShape>).shape;
      return Object.keys(shape).length > 0 ? shape : undefined;
    }
    const next = def.innerType ?? def.schema;
    if (!next) return undefined;
    inner = next;
  }
}

function columnsOf(shape: z.ZodRawShape, prefix: readonly string[]): Column[] {
  return Object.entries(shape).flatMap(([key, schema]) => {
    const path = [...prefix, key];
    const nested = objectShape(schema);
    return nested ? columnsOf(nested, path) : [{ name: path.join('.'), path }];
  });
}

const COLUMNS = new Map<ExportResource, Column[]>();

/** The CSV columns of a resource, from its schema in the contract. */
export function csvColumns(resource: ExportResource): readonly Column[] {
  let columns = COLUMNS.get(resource);
  if (!columns) {
    columns = columnsOf(EXPORT_ROW_SCHEMAS[resource].shape, []);
    COLUMNS.set(resource, columns);
  }
  return columns;
}

const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV cell of a value. */
function cell(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'boolean') text = String(value);
  else text = JSON.stringify(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function valueAt(object: unknown, path: readonly string[]): unknown {
  let value = object;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return null;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Writes rendered objects as lines of a file of one format. */
export interface RowWriter {
  /** What the file starts with (the CSV header row), or ''. */
  header(): string;
  line(object: unknown): string;
}

export function rowWriter(resource: ExportResource, format: ExportFormat): RowWriter {
  if (format === 'ndjson') {
    return { header: () => '', line: (object) => `${JSON.stringify(object)}\n` };
  }
  const columns = csvColumns(resource);
  return {
    header: () => `${columns.map((column) => cell(column.name)).join(',')}\r\n`,
    line: (object) =>
      `${columns.map((column) => cell(valueAt(object, column.path))).join(',')}\r\n`,
  };
}
