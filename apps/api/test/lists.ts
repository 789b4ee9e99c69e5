import { expect, it } from 'vitest';
import { expectBadRequest, expectError, expectItem, expectList, idsOf } from './assertions';
import { createTenant, type CallResult, type SharedTestServer, type TestTenant } from './setup';

type Server = Pick<SharedTestServer, 'get'>;

/** A list (as `expectList`) of exactly these ids, in this order; returns its body. */
export function expectIds(
  result: CallResult,
  ids: string[],
  expected: { total?: number; page?: number; limit?: number } = {},
  message?: string,
) {
  const list = expectList(result, expected);
  expect(idsOf(list.data), message).toEqual(ids);
  return list;
}

/**
 * For each `[query, ids]`: the list at `path?query` has exactly these ids, in this order, and as
 * many in total.
 */
export async function expectFiltered(
  server: Server,
  tenant: TestTenant,
  path: string,
  cases: [query: string, ids: string[]][],
) {
  for (const [query, ids] of cases) {
    expectIds(await server.get(tenant, `${path}?${query}`), ids, { total: ids.length }, query);
  }
}

/** A test for each `[query, parameter]`: the list at `path?query` is a 400 naming the parameter. */
export function itRefusesQueries(
  server: Server,
  path: string,
  cases: [query: string, parameter: string][],
) {
  it.each(cases)('refuses %s with a 400 naming the parameter', async (query, param) => {
    const tenant = await createTenant();
    expectBadRequest(await server.get(tenant, `${path}?${query}`), param);
  });
}

/**
 * `path/{id}` is a 404 with `message` for every id of `unknown`, and for `id` when `other` asks;
 * `owner` still finds `id`.
 */
export async function expectOwnerOnly(
  server: Server,
  path: string,
  found: { owner: TestTenant; other: TestTenant; id: string; unknown: string[]; message: string },
) {
  const { owner, other, id, unknown, message } = found;
  for (const wrong of unknown)
    expectError(await server.get(owner, `${path}/${wrong}`), 404, message);
  expectError(await server.get(other, `${path}/${id}`), 404, message);
  expectItem(await server.get(owner, `${path}/${id}`));
}

/**
 * Walks the list at `path` two items a page while `append` adds an item after each of the first
 * `appends` pages: every page counts the items added so far (`initial` at first), and the walk
 * sees every item once, in the order of the whole list.
 */
export async function expectStablePagesWhileAppending(
  server: Server,
  tenant: TestTenant,
  path: string,
  growth: { initial: number; appends: number; append: (index: number) => Promise<unknown> },
) {
  const seen: string[] = [];
  let appended = 0;
  for (let page = 1; page <= 20; page++) {
    const result = expectList(await server.get(tenant, `${path}?limit=2&page=${page}`), {
      total: growth.initial + appended,
      page,
      limit: 2,
    });
    seen.push(...idsOf(result.data));
    if (result.data.length === 0) break;
    if (appended < growth.appends) {
      await growth.append(appended);
      appended += 1;
    }
  }
  const all = expectList(await server.get(tenant, `${path}?limit=100`), {
    total: growth.initial + growth.appends,
  });
  expect(new Set(seen).size).toBe(seen.length);
  expect(seen).toEqual(idsOf(all.data));
}
