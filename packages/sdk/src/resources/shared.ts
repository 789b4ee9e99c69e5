import type { AppRoute, ClientInferRequest, ClientInferResponseBody } from '@ts-rest/core';
import { APIPromise } from '../core/api-promise';
import { PagePromise, type ListEnvelope } from '../core/pagination';
import type { Engine, RequestOptions } from '../internal/engine';

/** The query a list route accepts, as callers write it (`limit: 50`, `status: 'published'`). */
export type QueryOf<R extends AppRoute> = NonNullable<ClientInferRequest<R>['query']>;
/** The JSON body a route accepts. */
export type BodyOf<R extends AppRoute> =
  ClientInferRequest<R> extends { body: infer B } ? B : never;
/** The resource inside a `{ data }` answer. */
export type ItemOf<R extends AppRoute, S extends number = 200> =
  ClientInferResponseBody<R, S> extends {
    data: infer T;
  }
    ? T extends unknown[]
      ? T[number]
      : T
    : never;

/**
 * A list: the first page on await, every item on `for await`. The first request sends `query` as
 * it is (with its `page` or `cursor`, if any); each next one sends the same filters with the
 * previous page's cursor.
 */
export function listOf<Item>(
  engine: Engine,
  route: AppRoute,
  query: { page?: unknown; cursor?: unknown } & object,
  options?: RequestOptions,
): PagePromise<Item> {
  const { page: _page, cursor: _cursor, ...filters } = query;
  return new PagePromise<Item>((next) =>
    engine.send<ListEnvelope<Item>>(
      route,
      { query: next ? { ...filters, ...next } : query },
      options,
    ),
  );
}

/** One object, unwrapped from its `{ data }` envelope. */
export function itemOf<Item>(
  engine: Engine,
  route: AppRoute,
  input: { params?: Record<string, string>; body?: unknown },
  options?: RequestOptions,
): APIPromise<Item> {
  return new APIPromise(
    engine
      .send<{ data: Item }>(route, input, options)
      .then(({ data, response }) => ({ data: data.data, response })),
  );
}

/** The two read routes every resource has. */
interface ReadRoutes {
  list: AppRoute;
  get: AppRoute;
}

/** A resource's `list` and `get`; resources that can be written add their own methods. */
export class Resource<Routes extends ReadRoutes> {
  constructor(
    protected readonly engine: Engine,
    protected readonly routes: Routes,
  ) {}

  /**
   * Lists with the API's filters: oldest first (`created_at`, then id); with `updated_since`, by
   * `updated_at`; tiers in display order (`sort_order`). Await for one page; `for await` for every
   * item, or `.iterPages()` page by page. Pages follow cursors: pass a stored `cursor` (with the
   * same filters) to resume a walk.
   */
  list(
    query: QueryOf<Routes['list']> = {},
    options?: RequestOptions,
  ): PagePromise<ItemOf<Routes['get']>> {
    return listOf(this.engine, this.routes.list, query, options);
  }

  /** One object by id; a `NotFoundError` if it is not this organisation's. */
  get(id: string, options?: RequestOptions): APIPromise<ItemOf<Routes['get']>> {
    return itemOf(this.engine, this.routes.get, { params: { id } }, options);
  }
}
