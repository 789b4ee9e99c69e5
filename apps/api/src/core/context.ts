import type { EntityManager } from '@mikro-orm/postgresql';

/** What a service needs to act for one organisation: a request-scoped entity manager and the tenant. */
export interface TenantContext {
  em: EntityManager;
  organisationId: string;
}
