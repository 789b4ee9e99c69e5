import type { Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Scope } from '@boxoffice/contract';
import { MODE_HEADER, type ModeHeaders } from '@boxoffice/dashboard-contract';
import type { TenantContext } from '../core/context';
import type { ActiveSession } from '../modules/accounts/account.service';
import { testOrganisationOf } from '../modules/organisations/test-environment.service';

export interface RequestAuth {
  apiKeyId: string;
  /** The key's organisation: a live one, or a live one's test environment (`livemode` false). */
  organisationId: string;
  livemode: boolean;
  scopes: Scope[];
}

/** An API request's organisation and key, for the request log. */
export interface RequestCaller {
  apiKeyId: string;
  /** The key's hint (`bxo_live_…a1B2`), never the key. */
  keyHint: string;
  organisationId: string;
  livemode: boolean;
}

declare global {
  // Express's own extension point for typed `res.locals`.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      requestId: string;
      /**
       * Where the request's work starts: the ORM's entity manager on API routes (statements and
       * transactions take what they need), a fork of it on the dashboard's (whose services use
       * the ORM directly).
       */
      em: EntityManager;
      auth?: RequestAuth;
      /**
       * Whose API request this is, once its key is known to be active: set before the plan, scope
       * and rate-limit checks, so that their refusals are recorded in the organisation's log.
       */
      caller?: RequestCaller;
      /** The body of a 4xx or 5xx answer, as sent (for the request log). */
      errorBody?: unknown;
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

/** The authenticated tenant of an API request; only reachable behind the auth guard. */
export function tenantOf(res: Response): TenantContext & { apiKeyId: string } {
  return { ...authOf(res), em: res.locals.em };
}

function authOf(res: Response): { organisationId: string; livemode: boolean; apiKeyId: string } {
  const { auth } = res.locals;
  if (!auth) throw new Error('tenantOf() used on a route without authentication');
  return { organisationId: auth.organisationId, livemode: auth.livemode, apiKeyId: auth.apiKeyId };
}

/** The signed-in dashboard user; only reachable behind the session guard. */
export function dashboardSessionOf(res: Response): ActiveSession & { em: EntityManager } {
  const { dashboard, em } = res.locals;
  if (!dashboard) throw new Error('dashboardSessionOf() used on a route without a session');
  return { ...dashboard, em };
}

/**
 * What a dashboard request on keys or webhooks acts on, by its mode header: the signed-in user's
 * live organisation, or in test mode that organisation's test environment (given its sample data
 * at its first use).
 */
export async function dashboardTenantOf(
  res: Response,
  headers: ModeHeaders,
): Promise<TenantContext> {
  const { em, organisation } = dashboardSessionOf(res);
  if (headers[MODE_HEADER] !== 'test') {
    return { em, organisationId: organisation.id, livemode: true };
  }
  return { em, organisationId: await testOrganisationOf(em, organisation.id), livemode: false };
}
