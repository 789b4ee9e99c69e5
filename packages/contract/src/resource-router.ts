import { initContract } from '@ts-rest/core';
import type { z } from 'zod';
import { commonResponses, readRoutes } from './common';

const c = initContract();

/** The router of a read-only resource: `list` and `get` (see `readRoutes`). Internal. */
export const readOnlyRouter = <
  Path extends string,
  Item extends z.ZodTypeAny,
  Query extends z.ZodTypeAny,
>(
  read: Parameters<typeof readRoutes<Path, Item, Query>>[0],
) => {
  const routes = { ...readRoutes(read) };
  const options = { commonResponses, strictStatusCodes: true as const };
  // ts-rest cannot check a router whose paths and schemas are still type parameters.
  return c.router<typeof routes, string, typeof options>(routes as never, options);
};
