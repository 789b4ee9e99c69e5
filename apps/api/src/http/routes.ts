import type { Request, RequestHandler, Response } from 'express';
import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';

/** The one label of every request no route matched, so raw paths never become labels. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Route patterns (`/api/v1/events/:id`) of the contracts' routes, found by identity: ts-rest puts
 * the contract's route object on `req.tsRestRoute`, so naming a request is one map lookup.
 */
export class RoutePatterns {
  readonly #patterns = new Map<AppRoute, string>();

  /** Adds every route of `router`, mounted at `basePath`. */
  add(router: AppRouter, basePath: string): this {
    for (const entry of Object.values(router)) {
      if (isAppRoute(entry)) this.#patterns.set(entry, `${basePath}${entry.path}`);
      else this.add(entry, basePath);
    }
    return this;
  }

  /**
   * The pattern of the route that answered: a contract route; a path marked with `routeLabel`; a
   * route of the app itself (`/healthz`); otherwise `UNMATCHED_ROUTE`.
   */
  of(req: Request, res: Response): string {
    const tsRestRoute = (req as { tsRestRoute?: AppRoute }).tsRestRoute;
    if (tsRestRoute) return this.#patterns.get(tsRestRoute) ?? UNMATCHED_ROUTE;
    const marked = res.locals.route;
    if (marked) return marked;
    // Express restores `baseUrl` when an error leaves a mounted router, so only the app's own
    // routes (mounted at the root) are named from `req.route`; the others are marked.
    const route = req.route as { path?: unknown } | undefined;
    if (route && req.baseUrl === '' && typeof route.path === 'string') return route.path;
    return UNMATCHED_ROUTE;
  }
}

/** Names the requests of a mounted middleware (static files, the docs) by a fixed label. */
export const routeLabel =
  (label: string): RequestHandler =>
  (_req, res, next) => {
    res.locals.route = label;
    next();
  };
