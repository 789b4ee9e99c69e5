import type { EntityManager } from '@mikro-orm/postgresql';

/** What a service needs to act for one organisation: where its work starts, and the tenant. */
export interface TenantContext {
  /** The entity manager to work in: a transaction's, a request's, or the ORM's own (see app.ts). */
  em: EntityManager;
  organisationId: string;
  /**
   * Whether the organisation holds live data (false: it is a live organisation's test
   * environment). Every object rendered for it says so (`livemode`).
   */
  livemode: boolean;
}
