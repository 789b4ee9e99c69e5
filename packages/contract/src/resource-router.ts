import { initContract, type AppRouter } from '@ts-rest/core';
import { commonResponses } from './common';

const c: ReturnType<typeof initContract> = initContract();
const options = { commonResponses, strictStatusCodes: true as const };

/** The router ts-rest makes of `Routes`, with the options every resource shares. */
export type ResourceRouter<Routes extends AppRouter> = ReturnType<
  typeof c.router<Routes, string, typeof options>
>;

/**
 * The router of one resource: its routes (`readRoutes`, and `createRoute`/`updateRoute` for those
 * the API writes), each answering the shared error responses and only the statuses it declares.
 * Internal.
 */
export const resourceRouter = <Routes extends AppRouter>(routes: Routes): ResourceRouter<Routes> =>
  // ts-rest cannot check a router whose routes are still a type parameter.
  c.router<Routes, string, typeof options>(routes as never, options);
