import { APIPromise } from '../core/api-promise';
import { PagePromise, type ListEnvelope } from '../core/pagination';
import type { Engine, RequestOptions, ShapeCheck } from '../internal/engine';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What is wrong with a `{ data: {…} }` answer, if anything. */
function notAnItem(body: unknown): string | undefined {
  return isRecord(body) && isRecord(body.data) ? undefined : 'not a { "data": { … } } object';
}

/** What is wrong with a `{ data: [ … ] }` answer (a batch's results), if anything. */
export function notItems(body: unknown): string | undefined {
  return isRecord(body) && Array.isArray(body.data) ? undefined : 'not a { "data": [ … ] } object';
}

/** What is wrong with a list answer, if anything. */
function notAList(body: unknown): string | undefined {
  if (!isRecord(body) || !Array.isArray(body.data)) return 'not a { "data": [ … ] } list';
  if (typeof body.total !== 'number' || typeof body.page !== 'number') {
    return 'a list without its total and page';
  }
  return undefined;
}

/** The `cursor` of a `Link` header's `rel="next"` target, if it names one. */
export function nextCursorOf(link: string | null): string | undefined {
  if (link === null) return undefined;
  for (const part of link.split(',')) {
    const target = /^\s*<([^>]*)>\s*;\s*rel="?next"?\s*$/i.exec(part)?.[1];
    if (target === undefined) continue;
    const cursor = new URL(target, 'http://base').searchParams.get('cursor');
    if (cursor) return cursor;
  }
  return undefined;
}

/**
 * The calls on one path of the API that answer one object: `post`, `patch`, `remove` and `act`.
 * `Resource` adds the reads of a resource; the test helpers use it as it is.
 */
export class APIResource<Item> {
  constructor(
    protected readonly engine: Engine,
    protected readonly path: string,
  ) {}

  /** Creates an object from `body` (POST, with an idempotency key). */
  protected post<Body, Created = Item>(
    body: Body,
    options: RequestOptions | undefined,
  ): APIPromise<Created> {
    return this.item<Created>('POST', this.path, { body }, options);
  }

  /** Deletes the object `id` (DELETE). */
  protected remove(
    id: string,
    options: RequestOptions | undefined,
  ): APIPromise<{ id: string; deleted: true }> {
    return this.item('DELETE', `${this.path}/:id`, { params: { id } }, options);
  }

  /** Changes some fields of the object `id` (PATCH). */
  protected patch<Body>(
    id: string,
    body: Body,
    options: RequestOptions | undefined,
  ): APIPromise<Item> {
    return this.item('PATCH', `${this.path}/:id`, { params: { id }, body }, options);
  }

  /**
   * Does `action` to the object `id` (POST `path/:id/action`, with an idempotency key), with
   * `body` if there is one.
   */
  protected act<Body>(
    id: string,
    action: string,
    body: Body | undefined,
    options: RequestOptions | undefined,
  ): APIPromise<Item> {
    return this.item('POST', `${this.path}/:id/${action}`, { params: { id }, body }, options);
  }

  protected item<Out = Item>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    input: { params?: Record<string, string>; body?: unknown },
    options: RequestOptions | undefined,
    check: ShapeCheck = notAnItem,
  ): APIPromise<Out> {
    return new APIPromise(
      this.engine
        .send<{ data: Out }>({ method, path }, input, options, check)
        .then((answer) => ({ ...answer, data: answer.data.data })),
    );
  }
}

/**
 * A resource of the API at `path`: its `list` and `get`. Resources that can be written add their
 * own methods on top of `post` and `patch`.
 */
export class Resource<
  Item,
  ListParams extends object,
  Sync extends string | undefined = string,
> extends APIResource<Item> {
  /**
   * Lists with the API's filters: oldest first (`created_at`, then id); with `updated_since`, by
   * `updated_at`; tiers in display order (`sort_order`). Await for one page; `for await` for every
   * item, or `.iterPages()` page by page. Pages follow cursors: pass a stored `cursor` (with the
   * same filters) to resume a walk.
   *
   * @example
   * ```ts
   * const page = await client.orders.list({ status: 'completed', limit: 100 });
   * for await (const ticket of client.tickets.list({ event_id: 'evt_…' })) console.log(ticket.code);
   * ```
   */
  list(query?: ListParams, options?: RequestOptions): PagePromise<Item, Sync> {
    const {
      page: _page,
      cursor: _cursor,
      ...filters
    } = (query ?? {}) as {
      page?: unknown;
      cursor?: unknown;
    };
    return new PagePromise<Item, Sync>((next, onNextCursor) =>
      this.engine.send<ListEnvelope<Item>>(
        { method: 'GET', path: this.path },
        { query: next ? { ...filters, ...next } : query },
        options,
        notAList,
        onNextCursor &&
          ((response) => {
            const cursor = nextCursorOf(response.headers.get('link'));
            if (cursor !== undefined) onNextCursor(cursor);
          }),
      ),
    );
  }

  /**
   * One object by id; a `NotFoundError` if it is not this organisation's.
   *
   * @example
   * ```ts
   * const event = await client.events.get('evt_…');
   * ```
   */
  get(id: string, options?: RequestOptions): APIPromise<Item> {
    return this.item('GET', `${this.path}/:id`, { params: { id } }, options);
  }
}
