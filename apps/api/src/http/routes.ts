import type { Request, RequestHandler, Response } from 'express';
import { API_BASE_PATH, contract } from '@boxoffice/contract';
import { DASHBOARD_API_BASE_PATH, dashboardContract } from '@boxoffice/dashboard-contract';
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

/** The segments of a path, without the empty ones a trailing slash leaves (routing ignores it). */
const segmentsOf = (path: string): string[] => path.split('/').filter((part) => part !== '');

/**
 * The methods the contracts declare at each route pattern, so that a known path asked with
 * another method gets a 405 naming them (`Allow`) rather than a 404 saying it does not exist.
 */
export class RouteMethods {
  readonly #patterns = new Map<
    string,
    { segments: string[]; methods: Set<string>; literal: boolean }
  >();
  /** The methods of the patterns without parameters, by their lower-case segments. */
  readonly #literal = new Map<string, Set<string>>();

  /** Adds every route of `router`, mounted at `basePath`. */
  add(router: AppRouter, basePath: string): this {
    for (const entry of Object.values(router)) {
      if (!isAppRoute(entry)) {
        this.add(entry, basePath);
        continue;
      }
      const pattern = `${basePath}${entry.path}`;
      const known = this.#patterns.get(pattern);
      if (known) known.methods.add(entry.method);
      else {
        const segments = segmentsOf(pattern).map((part) => part.toLowerCase());
        const literal = segments.every((part) => !part.startsWith(':'));
        const methods = new Set([entry.method]);
        this.#patterns.set(pattern, { segments, methods, literal });
        if (literal) this.#literal.set(segments.join('/'), methods);
      }
    }
    return this;
  }

  /**
   * The methods of the patterns `path` matches (as the router matches: without regard to case, a
   * `:param` standing for any one segment), in the usual order; undefined when it matches none. A
   * path that is a pattern without parameters is that route's alone: `/checkins/batch` is not the
   * check-in `batch` of `/checkins/:id`.
   */
  at(path: string): string[] | undefined {
    const asked = segmentsOf(path).map((part) => part.toLowerCase());
    const matched = [...this.#patterns.values()].filter(
      ({ segments }) =>
        segments.length === asked.length &&
        segments.every((part, i) => part.startsWith(':') || part === asked[i]),
    );
    const own = matched.filter(({ literal }) => literal);
    const methods = new Set(
      (own.length > 0 ? own : matched).flatMap(({ methods }) => [...methods]),
    );
    if (methods.size === 0) return undefined;
    return METHOD_ORDER.filter((method) => methods.has(method));
  }

  /** The methods of the pattern without parameters that `path` is, if it is one. */
  ownedBy(path: string): string[] | undefined {
    const methods = this.#literal.get(segmentsOf(path).join('/').toLowerCase());
    return methods && METHOD_ORDER.filter((method) => methods.has(method));
  }
}

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The methods of every route the server answers from its contracts. */
export const CONTRACT_METHODS = new RouteMethods()
  .add(contract, API_BASE_PATH)
  .add(dashboardContract, DASHBOARD_API_BASE_PATH);
