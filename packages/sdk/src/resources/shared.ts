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

/** A list: the first page on await, every item on `for await`. */
export function listOf<Item>(
  engine: Engine,
  route: AppRoute,
  query: { page?: number | string } & object,
  options?: RequestOptions,
): PagePromise<Item> {
  const first = query.page === undefined ? 1 : Number(query.page);
  return new PagePromise<Item>(
    (page) => engine.send<ListEnvelope<Item>>(route, { query: { ...query, page } }, options),
    first,
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
