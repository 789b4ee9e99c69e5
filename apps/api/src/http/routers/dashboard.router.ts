import { initServer } from '@ts-rest/express';
import { dashboardContract, type PlanState, type Session } from '@boxoffice/dashboard-contract';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../core/errors';
import { iso, isoOrNull } from '../../core/iso-time';
import {
  checkPassword,
  closeSession,
  openSession,
  signUp,
  toUserView,
  type ActiveSession,
} from '../../modules/accounts/account.service';
import type { ApiKey } from '../../modules/api-keys/api-key.entity';
import {
  generateKey,
  listKeys,
  MAX_ACTIVE_KEYS,
  revokeKey,
} from '../../modules/api-keys/api-key.service';
import type { Organisation } from '../../modules/organisations/organisation.entity';
import {
  getOrganisation,
  planHistory,
  setPlan,
} from '../../modules/organisations/organisation.service';
import { reserveAttempts, type AttemptLimits } from '../attempt-limit';
import { clientAddress } from '../client-address';
import { resetTestEnvironment } from '../../modules/organisations/test-environment.service';
import {
  getRequestLog,
  listRequestLogs,
  requestsInLastDay,
  requestUsage,
} from '../../modules/request-logs/request-log.service';
import { dashboardSessionOf, dashboardTenantOf } from '../locals';
import type { UrlPolicy } from '../../modules/webhooks/url-guard';
import type { ExportQueue } from '../../modules/exports/export.service';
import { dashboardExportHandlers } from './dashboard-exports';
import { dashboardWebhookHandlers } from './dashboard-webhooks';
import { sessionToken, type SessionCookies } from '../session';

const s = initServer();

const toSessionView = ({ session, user, organisation }: ActiveSession): Session => ({
  user: toUserView(user),
  organisation: {
    id: organisation.id,
    name: organisation.name,
    plan: organisation.plan,
    plan_changed_at: isoOrNull(organisation.planChangedAt),
  },
  csrf_token: session.csrfToken,
});

const toKeyView = (key: ApiKey, livemode: boolean, requests: Map<string, number>) => ({
  id: key.id,
  name: key.name,
  hint: key.hint,
  scopes: key.scopes,
  status: key.revokedAt ? ('revoked' as const) : ('active' as const),
  created_at: iso(key.createdAt),
  last_used_at: isoOrNull(key.lastUsedAt),
  revoked_at: isoOrNull(key.revokedAt),
  livemode,
  requests_24h: requests.get(key.id) ?? 0,
});

async function planState(em: EntityManager, organisation: Organisation): Promise<PlanState> {
  const history = await planHistory(em, organisation.id);
  return {
    plan: organisation.plan,
    plan_changed_at: isoOrNull(organisation.planChangedAt),
    history: history.map((change) => ({
      from: change.fromPlan,
      to: change.toPlan,
      changed_at: iso(change.createdAt),
      changed_by: change.changedByUserId ?? null,
    })),
  };
}

/**
 * The dashboard's API. Keys are generated and revoked through the same service the operator CLI
 * uses; every lookup is scoped to the signed-in user's organisation, in the request's mode (its
 * live data, or its test environment). The plan is the live organisation's, for both modes.
 */
export function dashboardRouter(deps: {
  cookies: SessionCookies;
  attemptLimits: AttemptLimits;
  webhookUrls: UrlPolicy;
  exportQueue?: ExportQueue | undefined;
}) {
  const limits = deps.attemptLimits;
  return s.router(dashboardContract, {
    session: ({ res }) =>
      Promise.resolve({ status: 200 as const, body: toSessionView(dashboardSessionOf(res)) }),

    signup: async ({ body, req, res }) => {
      const em = res.locals.em;
      // Counted before any work, refused ones too: each costs a password check and a hash.
      await limits.signups.consume(clientAddress(req));
      const { user, organisation } = await signUp(em, {
        organisationName: body.organisation_name,
        email: body.email,
        password: body.password,
      });
      const { token, session } = await openSession(em, user.id);
      deps.cookies.set(res, token);
      return { status: 201, body: toSessionView({ session, user, organisation }) };
    },

    login: async ({ body, req, res }) => {
      const em = res.locals.em;
      // Failures count per address and email (guessing one password) and per address (one
      // password tried on many accounts); never per email alone, which would let anyone lock a
      // stranger out. The attempt is counted before the password check, so parallel guesses
      // cannot slip past the limit, and given back if it succeeds.
      const address = clientAddress(req);
      const account = `${address}:${body.email}`;
      const attempt = await reserveAttempts([
        [limits.signInsByAddress, address],
        [limits.signInsByAccount, account],
      ]);
      const user = await checkPassword(em, body.email, body.password).catch(
        async (error: unknown) => {
          await attempt.release().catch(() => undefined);
          throw error;
        },
      );
      if (!user) throw new AppError(401, 'invalid_credentials', 'Incorrect email or password');
      // Bookkeeping only: a store failing now must not undo a correct sign-in.
      await Promise.all([
        limits.signInsByAccount.reset(account),
        limits.signInsByAddress.refund(address),
      ]).catch(() => undefined);
      const { token, session } = await openSession(em, user.id);
      deps.cookies.set(res, token);
      const organisation = await getOrganisation(em, user.organisationId);
      return { status: 200, body: toSessionView({ session, user, organisation }) };
    },

    logout: async ({ req, res }) => {
      const token = sessionToken(req);
      if (token) await closeSession(res.locals.em, token);
      deps.cookies.clear(res);
      return { status: 204, body: undefined };
    },

    listKeys: async ({ headers, res }) => {
      const { em, organisationId, livemode } = await dashboardTenantOf(res, headers);
      const tenant = { em, organisationId, livemode };
      const [keys, requests] = await Promise.all([
        listKeys(em, organisationId),
        requestsInLastDay(tenant),
      ]);
      return {
        status: 200,
        body: {
          data: keys.map((key) => toKeyView(key, livemode, requests)),
          max_active_keys: MAX_ACTIVE_KEYS,
        },
      };
    },

    createKey: async ({ body, headers, res }) => {
      const { em, organisationId, livemode } = await dashboardTenantOf(res, headers);
      // The test environment's keys are test keys (`bxo_test_…`).
      const { apiKey, key } = await generateKey(em, {
        organisationId,
        name: body.name,
        scopes: body.scopes,
      });
      return {
        status: 201,
        body: { data: { key: toKeyView(apiKey, livemode, new Map()), secret: key } },
      };
    },

    revokeKey: async ({ params, headers, res }) => {
      const { em, organisationId, livemode } = await dashboardTenantOf(res, headers);
      const key = await revokeKey(em, params.id, organisationId);
      const requests = await requestsInLastDay({ em, organisationId, livemode });
      return { status: 200, body: { data: toKeyView(key, livemode, requests) } };
    },

    resetTestEnvironment: async ({ res }) => {
      const { em, organisation } = dashboardSessionOf(res);
      return { status: 200, body: { data: await resetTestEnvironment(em, organisation.id) } };
    },

    getPlan: async ({ res }) => {
      const { em, organisation } = dashboardSessionOf(res);
      return { status: 200, body: { data: await planState(em, organisation) } };
    },

    setPlan: async ({ body, res }) => {
      const { em, organisation, user } = dashboardSessionOf(res);
      const updated = await setPlan(em, organisation.id, body.plan, user.id);
      return { status: 200, body: { data: await planState(em, updated) } };
    },

    listLogs: async ({ headers, query, res }) => {
      const tenant = await dashboardTenantOf(res, headers);
      return { status: 200, body: await listRequestLogs(tenant, query) };
    },

    getLog: async ({ headers, params, res }) => {
      const tenant = await dashboardTenantOf(res, headers);
      return { status: 200, body: { data: await getRequestLog(tenant, params.id) } };
    },

    getUsage: async ({ headers, query, res }) => {
      const tenant = await dashboardTenantOf(res, headers);
      return {
        status: 200,
        body: { data: await requestUsage(tenant, query.window, query.key_id ?? null) },
      };
    },

    ...dashboardWebhookHandlers(deps.webhookUrls, limits),
    ...dashboardExportHandlers(deps.exportQueue),
  });
}
