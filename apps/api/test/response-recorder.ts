import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { API_BASE_PATH } from '@boxoffice/contract';
import { buildOpenApiDocument } from '../src/openapi/document';

type Json = Record<string, any>;

/**
 * Every answer the test server gives under `/api/v1` is checked against the OpenAPI document the
 * server serves: its status must be documented for the operation, its body must match that
 * status's schema (error codes included) and its headers the headers declared there. The suites
 * then prove the document true for every response they provoke; a mismatch fails the test that
 * caused it (see response-check.setup.ts).
 */
const violations: string[] = [];

const pending = new Set<Promise<void>>();

/** The mismatches found since the last call, once the checks under way are done. */
export async function takeViolations(): Promise<string[]> {
  await Promise.all(pending);
  return violations.splice(0);
}

interface Checker {
  document: Json;
  operations: Array<{
    method: string;
    pattern: RegExp;
    /** A path without parameters: a request for it is this path's, not an id of another's. */
    literal: boolean;
    pointer: string;
    operation: Json;
  }>;
  ajv: Ajv2020;
  compiled: Map<string, ValidateFunction>;
}

let checker: Promise<Checker> | undefined;

const escape = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

function load(): Promise<Checker> {
  checker ??= buildOpenApiDocument('test').then((document) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(document, 'openapi');
    const operations = Object.entries(document.paths as Record<string, Json>).flatMap(
      ([path, item]) =>
        Object.entries(item).map(([method, operation]) => ({
          method: method.toUpperCase(),
          pattern: new RegExp(`^${API_BASE_PATH}${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
          literal: !path.includes('{'),
          pointer: `#/paths/${escape(path)}/${method}`,
          operation: operation as Json,
        })),
    );
    return { document, operations, ajv, compiled: new Map() };
  });
  return checker;
}

/** The object a `$ref` (within `document`) points at, or `node` itself. */
export const resolveRef = (document: Json, node: Json): Json =>
  node.$ref
    ? resolveRef(
        document,
        (node.$ref as string)
          .slice(2)
          .split('/')
          .reduce(
            (at: Json, key: string) => at[key.replaceAll('~1', '/').replaceAll('~0', '~')],
            document,
          ),
      )
    : node;

/**
 * The path Express routes the request by (`parseurl`): a plain request-target's path as it is, but
 * one holding a fragment or whitespace goes through Node's legacy `url.parse`, which drops the
 * fragment and turns backslashes into slashes (`/attendees/\#x` is routed as `/attendees//`).
 */
function routedPath(url: string): string {
  if (!/[#\s\u00a0\ufeff]/.test(url)) return url.split('?')[0]!;
  return url.split(/[?#]/)[0]!.replaceAll('\\', '/');
}

async function check(
  method: string,
  url: string,
  res: ServerResponse,
  body: Buffer,
): Promise<void> {
  const { document, operations, ajv, compiled } = await load();
  const path = routedPath(url);
  // A path of the document without parameters is its own (`/checkins/batch` is no check-in id).
  const own = operations.some((o) => o.literal && o.pattern.test(path));
  const found = operations.find(
    (o) => o.method === method && o.pattern.test(path) && (o.literal || !own),
  );
  // Other methods and paths end in `route_not_found`: not an operation of the document.
  if (!found) return;
  const where = `${method} ${url} → ${res.statusCode}`;
  const status = String(res.statusCode);
  const declared = (found.operation.responses as Record<string, Json>)[status];
  if (!declared) {
    violations.push(`${where}: status not documented for ${found.operation.operationId}`);
    return;
  }
  const response = resolveRef(document, declared);
  for (const [name, ref] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    const header = resolveRef(document, ref);
    const value = res.getHeader(name);
    if (value === undefined) {
      if (header.required) violations.push(`${where}: header ${name} missing`);
      continue;
    }
    const schema = header.schema as Json;
    const text = String(value);
    const ok =
      schema.type === 'integer'
        ? /^\d+$/.test(text)
        : !schema.enum || (schema.enum as string[]).includes(text);
    if (!ok) violations.push(`${where}: header ${name}: ${text} does not match its schema`);
  }
  const media = response.content?.['application/json'];
  if (!media) return;
  const pointer = declared.$ref
    ? `${declared.$ref}/content/application~1json/schema`
    : `${found.pointer}/responses/${status}/content/application~1json/schema`;
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi${pointer}` });
    compiled.set(pointer, validate);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    violations.push(`${where}: body is not JSON`);
    return;
  }
  if (!validate(parsed)) {
    violations.push(
      `${where}: body does not match its schema: ${ajv.errorsText(validate.errors)}; body ${body.toString('utf8').slice(0, 300)}`,
    );
  }
}

/** Wraps the app's handler so that each `/api/v1` answer is checked once it is sent. */
export function checkedResponses(handler: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    if (!url.startsWith(`${API_BASE_PATH}/`) || method === 'HEAD' || method === 'OPTIONS') {
      return handler(req, res);
    }
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(
        Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(
              chunk as string,
              typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
            ),
      );
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.write = ((...args: unknown[]) => {
      keep(args[0], args[1]);
      return write(...args);
    }) as typeof res.write;
    res.end = ((...args: unknown[]) => {
      keep(args[0], args[1]);
      return end(...args);
    }) as typeof res.end;
    res.on('finish', () => {
      const checking = check(method, url, res, Buffer.concat(chunks))
        .catch((error: unknown) => {
          violations.push(`${method} ${url}: the check failed: ${String(error)}`);
        })
        .finally(() => pending.delete(checking));
      pending.add(checking);
    });
    return handler(req, res);
  };
}
