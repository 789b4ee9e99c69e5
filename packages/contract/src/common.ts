import { z } from 'zod';

/** One refused value of a `validation_failed` error. */
export const ErrorDetailSchema = z.object({
  /** The field or query parameter, dotted for nested fields (`events.0`); empty for the whole body. */
  field: z.string(),
  /** What is wrong with it, naming it. */
  message: z.string(),
});
export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;

/** Every failure answers with this body: `error` is always present; `code` is a stable machine-readable kind. */
export const ErrorSchema = z
  .object({
    /** What went wrong, for people: it names the field or object involved. */
    error: z.string(),
    /** The kind of error, stable and meant for programs, e.g. `already_checked_in`. */
    code: z.string().optional(),
    /** The request's id, on a 500: quote it when reporting the problem. */
    request_id: z.string().optional(),
    /** With `validation_failed`: each value refused (at most 10), the first one as in `error`. */
    details: z.array(ErrorDetailSchema).optional(),
  })
  .passthrough();
export type ApiErrorBody = z.infer<typeof ErrorSchema>;

export const itemEnvelope = <T extends z.ZodTypeAny>(item: T) => z.object({ data: item });

/** The access class of a route: which scope it needs and which rate-limit bucket it counts against. */
export type Scope = 'read' | 'write' | 'checkins:write';
export const SCOPES = ['read', 'write', 'checkins:write'] as const satisfies readonly Scope[];
export type RateLimitClass = 'read' | 'write';
/** The rate-limit bucket of a request: GET (and HEAD) count as reads, everything else as writes. */
export const rateLimitClassOf = (method: string): RateLimitClass =>
  method === 'GET' || method === 'HEAD' ? 'read' : 'write';
export interface RouteMetadata {
  scope: Scope;
  /** Only test keys (`bxo_test_…`) may call it: a live key gets a 403 `test_mode_only`. */
  testModeOnly?: true;
}
export const readRoute = { scope: 'read' } as const satisfies RouteMetadata;
export const writeRoute = { scope: 'write' } as const satisfies RouteMetadata;
export const checkinWriteRoute = { scope: 'checkins:write' } as const satisfies RouteMetadata;
/** A test helper: a write of test data, for test keys only. */
export const testHelperRoute = {
  scope: 'write',
  testModeOnly: true,
} as const satisfies RouteMetadata;

/** Responses every authenticated route may give, whatever it does. */
export const commonResponses = {
  400: ErrorSchema,
  401: ErrorSchema,
  402: ErrorSchema,
  403: ErrorSchema,
  429: ErrorSchema,
  500: ErrorSchema,
  503: ErrorSchema,
} as const;

/** Responses of routes that take a JSON body. */
export const mutationResponses = {
  404: ErrorSchema,
  409: ErrorSchema,
  413: ErrorSchema,
  422: ErrorSchema,
} as const;

// ---------------------------------------------------------------------------
// Scalars. Messages of `custom` issues name their field: the server shows them as they are.

const ID_BODY = /^[A-Za-z0-9]{16,64}$/;

/** A prefixed object id such as `evt_…`. Only the shape is checked; an unknown id is a 404, not a 400. */
export const idOf = (prefix: string) =>
  z.string().max(80).describe(`An id starting with \`${prefix}_\``);

export const isPrefixedId = (prefix: string, value: string): boolean =>
  value.startsWith(`${prefix}_`) && ID_BODY.test(value.slice(prefix.length + 1));

// The years PostgreSQL and ISO-8601 `…Z` strings share: outside them a timestamp would fail in the
// database (a 500) instead of being refused as a bad value.
const EARLIEST_TIME = Date.parse('0001-01-01T00:00:00Z');
const LATEST_TIME = Date.parse('9999-12-31T23:59:59.999Z');

export const TimestampSchema = z
  .string()
  .datetime({ offset: true })
  .superRefine((value, ctx) => {
    const time = Date.parse(value);
    if (!(time >= EARLIEST_TIME && time <= LATEST_TIME)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: 'must be a time between the years 0001 and 9999',
        params: { prefixField: true },
      });
    }
  })
  .describe('An ISO-8601 timestamp (responses are always UTC with `Z`)');

/** How long after its `updated_at` (or `created_at`) a write may still commit: see `sync_checkpoint`. */
export const SYNC_OVERLAP_SECONDS = 60;

/**
 * What a cursor looks like, for the OpenAPI document: one the server issued (for the second page of
 * an order list), so it has the real form. Opaque to clients: never build or parse one.
 */
export const CURSOR_EXAMPLE =
  'eyJ2IjoxLCJhIjpbIjIwMjYtMTEtMDJUMTA6MTU6MDAuMDAwMDAwKzAwOjAwIiwib3JkXzBWYmdBVWEza1Q5bVEyeExyOFpwMVdjRSJdLCJwIjoyLCJ0IjozNDMsInMiOjE3OTM2MTQ4MDAwMDAsImYiOiJmMVpNRzd3eUJJQzkybUdGIn0.Tk0Hu7Cwu8LaEFHAPxYb8w';

export const listEnvelope = <T extends z.ZodTypeAny>(item: T) =>
  z.object({
    data: z.array(item).describe("This page's items, in the list's order."),
    total: z
      .number()
      .int()
      .nonnegative()
      .describe(
        'Every match of the filters; on a page reached with a cursor, the count when the walk began (pages do not recount).',
      ),
    page: z
      .number()
      .int()
      .positive()
      .describe("This page's number; on a page reached with a cursor, its place in the walk."),
    limit: z.number().int().positive().describe('The most items a page holds, as asked.'),
    next_cursor: Object.assign(
      z
        .string()
        .nullable()
        .describe(
          'Send as `cursor`, with the same filters, for the next page; `null` after the last page.',
        ),
      { metaOpenApi: { example: CURSOR_EXAMPLE } },
    ),
    sync_checkpoint: TimestampSchema.describe(
      `Where the next sync starts: pass it as \`updated_since\` (\`since\` for check-ins) to see every change committed after this walk began. It is when the walk's first page was served, less ${SYNC_OVERLAP_SECONDS} s (a write may commit that long after its timestamp), so a few items come again: de-duplicate by \`id\`.`,
    ),
  });

export const DateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .describe('A calendar date, YYYY-MM-DD');

export const CurrencySchema = z
  .string()
  .superRefine((value, ctx) => {
    if (!/^[A-Z]{3}$/.test(value)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: 'currency must be a three-letter upper-case ISO 4217 code, e.g. EUR',
      });
    }
  })
  .describe('ISO 4217 currency code, upper case');
Object.assign(CurrencySchema, { metaOpenApi: { pattern: '^[A-Z]{3}$', example: 'GBP' } });

/** The canonical IANA name of a time zone (`europe/berlin` → `Europe/Berlin`), or null. */
const canonicalTimeZone = (value: string): string | null => {
  // Intl also takes UTC offsets such as `+01:00`, which are not IANA names and know no DST.
  if (/^[+-]/.test(value)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
};

export const TimeZoneSchema = z
  .string()
  .transform((value, ctx) => {
    const canonical = canonicalTimeZone(value);
    if (canonical === null) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: 'timezone must be an IANA time zone name, e.g. Europe/Berlin',
      });
      return z.NEVER;
    }
    return canonical;
  })
  .describe('IANA time zone name');
// Any case is taken (and stored canonical); a UTC offset such as `+01:00` is not a time zone.
Object.assign(TimeZoneSchema, {
  metaOpenApi: { pattern: '^[A-Za-z_]+(?:/[A-Za-z0-9_+-]+)*$', example: 'Europe/London' },
});

/** Minor units of a currency (cents): a non-negative integer, never a float; stored as int4. */
export const MoneySchema = z.number().int().nonnegative().max(2_147_483_647);

/**
 * Free text as PostgreSQL can store it: any characters but NUL, and well-formed Unicode (a lone
 * UTF-16 surrogate, as JSON's `"\ud800"` can carry, would be stored as U+FFFD, changing the text).
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what is refused
export const TEXT_PATTERN = /^[^\u0000\uD800-\uDFFF]*$/u;
/**
 * `TEXT_PATTERN` as the OpenAPI document states it: schema tools (Python's among them) cannot
 * generate from a surrogate range, and JSON text has no lone surrogates to refuse, so it says NUL.
 */
export const TEXT_WIRE_PATTERN = '^[^\\x00]*$';
export const TextSchema = z.string().regex(TEXT_PATTERN, {
  message: 'must be text without NUL characters or unpaired UTF-16 surrogates',
});

// ---------------------------------------------------------------------------
// Query parameters arrive as strings (or arrays, when repeated). Each parser takes whatever came
// and either returns the typed value or adds one issue whose message names the parameter. The
// declared input types are the natural ones, so SDK callers write `limit: 50`, `checked_in: true`.

type ParamResult<T> = { ok: true; value: T } | { ok: false; message?: string };

/** An OpenAPI schema of a parameter as it travels in the URL. */
type WireSchema = Record<string, unknown>;

/**
 * Tells OpenAPI generators the parameter's wire form, which zod cannot see through a transform.
 * `metaOpenApi` is the property zod-to-OpenAPI converters (as used by @ts-rest/open-api) read.
 */
const documented = <S extends z.ZodTypeAny>(schema: S, wire: WireSchema): S =>
  Object.assign(schema, { metaOpenApi: { ...wire, nullable: false } });

/** A refused value: `message` when the parser says what is wrong, else the parameter's own. */
const queryParam = <In, Out>(
  message: string,
  parse: (value: unknown) => ParamResult<Out>,
  description: string,
  wire: WireSchema,
) =>
  documented(
    (z.unknown() as unknown as z.ZodType<In | undefined, z.ZodTypeDef, In | undefined>)
      .transform((value, ctx): Out | undefined => {
        if (value === undefined) return undefined;
        const result = parse(value);
        if (!result.ok) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: result.message ?? message });
          return z.NEVER;
        }
        return result.value;
      })
      .describe(description),
    wire,
  );

/** An integer parameter from `min` to `max`; absent, it is `fallback`, or undefined with no fallback. */
const integerParam = <Fallback extends number | undefined>(
  name: string,
  min: number,
  max: number,
  fallback: Fallback,
) => {
  const range = `an integer between ${min} and ${max}`;
  const param = queryParam<number | string, number>(
    `${name} must be ${range}`,
    (value) => {
      const text = typeof value === 'number' ? String(value) : value;
      // Digits only, so `1e3`, `0x10` and `1.0` are refused; any number of them, so that a value
      // past `max` (even past 2^53) is named as out of range.
      if (typeof text !== 'string' || !/^\s*[0-9]+\s*$/.test(text)) return { ok: false };
      const parsed = Number(text);
      return parsed >= min && parsed <= max ? { ok: true, value: parsed } : { ok: false };
    },
    fallback === undefined ? `${range}; 1 when absent` : `${range}; default ${fallback}`,
    {},
  );
  // No `default` without a fallback: generated clients send declared defaults.
  const wire: WireSchema = { type: 'integer', minimum: min, maximum: max };
  if (fallback !== undefined) wire.default = fallback;
  return documented(
    param.transform(
      (value) => (value ?? fallback) as Fallback extends number ? number : number | undefined,
    ),
    wire,
  );
};

/** An opaque list cursor: the `next_cursor` of an earlier page. */
const cursorParam = queryParam<string, string>(
  'cursor must be the next_cursor of an earlier page of this list',
  (value) =>
    typeof value === 'string' && /^[A-Za-z0-9_.-]{1,2000}$/.test(value)
      ? { ok: true, value }
      : { ok: false },
  'The `next_cursor` of the previous page: continues the same list, with the same filters, after its last item. Not with `page`.',
  { type: 'string', maxLength: 2000, example: CURSOR_EXAMPLE },
);

/**
 * The query of a route that takes no parameters: any parameter is refused (a misspelt one would
 * otherwise be ignored without a word).
 */
export const NoQuerySchema = z.object({}).strict();

/**
 * The query of every list: `page` or `cursor`, and `limit`. Strict, as the lists' filters that
 * extend it: an unknown parameter is a 400, not a filter silently ignored. `page` stays undefined
 * when absent (the server reads it as 1): a `cursor` cannot be combined with an explicit `page`.
 */
export const PaginationQuerySchema = z
  .object({
    /** The page to start at, from 1 (1 when absent). Not with `cursor`. */
    page: integerParam('page', 1, Number.MAX_SAFE_INTEGER, undefined),
    /** Items per page, 1–100 (default 20). */
    limit: integerParam('limit', 1, 100, 20),
    /**
     * The `next_cursor` of an earlier page: continues that walk, with the same filters, after its
     * last item. Not with `page`.
     */
    cursor: cursorParam,
  })
  .strict();
export type PaginationQuery = z.input<typeof PaginationQuerySchema>;

/** A timestamp filter such as `updated_since`. */
export const timestampParam = (name: string) =>
  queryParam<string | Date, Date>(
    `${name} must be an ISO-8601 timestamp, e.g. 2026-01-31T18:00:00Z`,
    (value) => {
      if (value instanceof Date) {
        return Number.isNaN(value.getTime()) ? { ok: false } : { ok: true, value };
      }
      if (typeof value !== 'string' || !TimestampSchema.safeParse(value).success) {
        return { ok: false };
      }
      const date = new Date(value);
      return Number.isNaN(date.getTime()) ? { ok: false } : { ok: true, value: date };
    },
    'ISO-8601 timestamp',
    { type: 'string', format: 'date-time' },
  );

/** A status filter: one value or a comma-separated list of them (`status=draft,published`). */
export const enumListParam = <T extends string>(name: string, values: readonly [T, ...T[]]) =>
  queryParam<T | T[] | string, T[]>(
    `${name} must be one or more of: ${values.join(', ')} (comma-separated)`,
    (value) => {
      const raw = Array.isArray(value) ? value : [value];
      if (!raw.every((part) => typeof part === 'string')) return { ok: false };
      const parts = raw
        .flatMap((part) => part.split(','))
        .map((part) => part.trim())
        .filter((part) => part !== '');
      const known = parts.every((part) => (values as readonly string[]).includes(part));
      return parts.length > 0 && known
        ? { ok: true, value: [...new Set(parts)] as T[] }
        : { ok: false };
    },
    `One or more of ${values.join(', ')}, comma-separated`,
    { type: 'array', items: { type: 'string', enum: values }, minItems: 1 },
  );

/** A boolean filter: `true` or `false`. */
export const booleanParam = (name: string) =>
  queryParam<boolean | 'true' | 'false', boolean>(
    `${name} must be true or false`,
    (value) => {
      if (value === true || value === 'true') return { ok: true, value: true };
      if (value === false || value === 'false') return { ok: true, value: false };
      return { ok: false };
    },
    '`true` or `false`',
    { type: 'boolean' },
  );

/** A free-text or exact-match string filter. */
export const textParam = (name: string, max = 200) =>
  queryParam<string, string>(
    `${name} must be a single value between 1 and ${max} characters`,
    (value) => {
      if (typeof value !== 'string' || value.length === 0 || value.length > max) {
        return { ok: false };
      }
      return value.includes('\0')
        ? { ok: false, message: `${name} must be text without NUL characters (%00)` }
        : { ok: true, value };
    },
    `Up to ${max} characters`,
    { type: 'string', minLength: 1, maxLength: max, pattern: TEXT_WIRE_PATTERN },
  );

export const IdPathSchema = z.object({ id: z.string() });

/**
 * Marks an object of which exactly one of `fields` must be given (its refinement says so to zod):
 * the OpenAPI document states it as a `oneOf`, for generated clients and validators.
 */
export const exactlyOneOf = <S extends z.ZodTypeAny>(schema: S, fields: readonly string[]): S =>
  Object.assign(schema, { metaOpenApi: { 'x-exactly-one-of': fields } });

/**
 * The two read routes of every resource: its list, with the filters of `query`, and one object by
 * id (404 when it is not the caller's). `singular` carries its article: `an order`.
 */
export function readRoutes<
  Path extends string,
  Item extends z.ZodTypeAny,
  Query extends z.ZodTypeAny,
>(resource: {
  path: Path;
  item: Item;
  query: Query;
  plural: string;
  singular: string;
  description: string;
}) {
  return {
    list: {
      method: 'GET',
      path: resource.path,
      query: resource.query,
      responses: { 200: listEnvelope(resource.item) },
      metadata: readRoute,
      summary: `List ${resource.plural}`,
      description: `${resource.description} Page with \`page\` and \`limit\`, or follow \`next_cursor\`: send it back as \`cursor\` with the same filters (a cursor page costs the same at any depth, and no item is skipped when others change meanwhile).`,
    },
    get: {
      method: 'GET',
      path: `${resource.path}/:id`,
      pathParams: IdPathSchema,
      query: NoQuerySchema,
      responses: { 200: itemEnvelope(resource.item), 404: ErrorSchema },
      metadata: readRoute,
      summary: `Get ${resource.singular}`,
      description: `${resource.singular.charAt(0).toUpperCase()}${resource.singular.slice(1)} by its id. An id of another organisation, or of another kind of object, is a 404.`,
    },
  } as const;
}

/** What a write route says beyond its place: its body, and its words for the reference. */
interface WriteRoute<Path extends string, Item extends z.ZodTypeAny, Body extends z.ZodTypeAny> {
  /** The collection's path, e.g. `/events`. */
  path: Path;
  item: Item;
  body: Body;
  summary: string;
  description: string;
}

/** `POST path`: creates one object from `body` and answers it, 201. */
export const createRoute = <
  Path extends string,
  Item extends z.ZodTypeAny,
  Body extends z.ZodTypeAny,
  Metadata extends RouteMetadata = typeof writeRoute,
>(
  route: WriteRoute<Path, Item, Body> & { metadata?: Metadata },
) =>
  ({
    method: 'POST',
    path: route.path,
    body: route.body,
    responses: { 201: itemEnvelope(route.item), ...mutationResponses },
    metadata: (route.metadata ?? writeRoute) as Metadata,
    summary: route.summary,
    description: route.description,
  }) as const;

/** `PATCH path/:id`: changes one object with `body` and answers it as it is now. */
export const updateRoute = <
  Path extends string,
  Item extends z.ZodTypeAny,
  Body extends z.ZodTypeAny,
>(
  route: WriteRoute<Path, Item, Body>,
) =>
  ({
    method: 'PATCH',
    path: `${route.path}/:id`,
    pathParams: IdPathSchema,
    body: route.body,
    responses: { 200: itemEnvelope(route.item), ...mutationResponses },
    metadata: writeRoute,
    summary: route.summary,
    description: route.description,
  }) as const;
