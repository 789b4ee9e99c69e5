import type { Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Scope } from '@boxoffice/contract';
import type { TenantContext } from '../core/context';
import type { ActiveSession } from '../modules/accounts/account.service';

export interface RequestAuth {
  apiKeyId: string;
  organisationId: string;
  scopes: Scope[];
}

declare global {
  // Express's own extension point for typed `res.locals`.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      requestId: string;
      entityManagers: RequestEntityManagers;
      auth?: RequestAuth;
      /** The dashboard user's session, on `/dashboard/api` routes. */
      dashboard?: ActiveSession;
      /** `performance.now()` when the request arrived (for its duration). */
      startedAt: number;
      /** The route label of a request not answered by a contract route (see `routeLabel`). */
      route?: string;
      /** The request's `Idempotency-Key` and fingerprint, on POST routes that sent one. */
      idempotency?: { key: string; fingerprint: string };
    }
  }
}

/**
 * A request's entity managers. Its own is forked from the ORM's at its first use: a request that
 * runs plain statements and writes in a transaction of its own (a check-in) needs none, and a fork
 * costs the ORM a dozen objects and two writes to `process.env` (bench/README.md).
 */
export class RequestEntityManagers {
  #own: EntityManager | undefined;
  readonly #root: EntityManager;

  constructor(root: EntityManager) {
    this.#root = root;
  }

  /** The request's own entity manager (and identity map), for the ORM's reads and writes. */
  get own(): EntityManager {
    return (this.#own ??= this.#root.fork());
  }

  /**
   * Where plain statements and transactions start: the request's own entity manager once it has
   * one (a transaction's fork starts with what it holds), the ORM's until then (forking it gives
   * the same as forking an own one that holds nothing yet).
   */
  get base(): EntityManager {
    return this.#own ?? this.#root;
  }
}

/** The authenticated tenant of an API request; only reachable behind the auth guard. */
export function tenantOf(res: Response): TenantContext & { apiKeyId: string } {
  return { ...authOf(res), em: res.locals.entityManagers.own };
}

/**
 * `tenantOf` for work that needs no entity manager of the request's own: plain statements (the
 * lists, db/pages.ts) and writes, whose transaction forks its own.
 */
export function baseTenantOf(res: Response): TenantContext & { apiKeyId: string } {
  return { ...authOf(res), em: res.locals.entityManagers.base };
}

function authOf(res: Response): { organisationId: string; apiKeyId: string } {
  const { auth } = res.locals;
  if (!auth) throw new Error('tenantOf() used on a route without authentication');
  return { organisationId: auth.organisationId, apiKeyId: auth.apiKeyId };
}

/** The signed-in dashboard user; only reachable behind the session guard. */
export function dashboardSessionOf(res: Response): ActiveSession & { em: EntityManager } {
  const { dashboard, entityManagers } = res.locals;
  if (!dashboard) throw new Error('dashboardSessionOf() used on a route without a session');
  return { ...dashboard, em: entityManagers.own };
}
