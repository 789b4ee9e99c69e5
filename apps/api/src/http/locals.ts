import type { Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Scope } from '@boxoffice/contract';
import type { TenantContext } from '../db/context';

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
      em: EntityManager;
      auth?: RequestAuth;
    }
  }
}

/** The authenticated tenant of an API request; only reachable behind the auth guard. */
export function tenantOf(res: Response): TenantContext & { apiKeyId: string } {
  const { auth, em } = res.locals;
  if (!auth) throw new Error('tenantOf() used on a route without authentication');
  return { em, organisationId: auth.organisationId, apiKeyId: auth.apiKeyId };
}
