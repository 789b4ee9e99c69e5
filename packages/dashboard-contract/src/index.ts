import { initContract } from '@ts-rest/core';
import {
  ErrorSchema,
  SCOPES,
  TestDataResetSchema,
  TextSchema,
  type TestDataReset,
} from '@boxoffice/contract';
import { z } from 'zod';
import { ModeHeadersSchema } from './mode';
import { logRoutes } from './logs';
import { exportRoutes } from './exports';
import { webhookRoutes } from './webhooks';

export * from './logs';
export * from './mode';
export * from './webhooks';
export * from './exports';

/**
 * The dashboard's own API, mounted at `/dashboard/api`. It is not part of the public API: it is
 * authenticated by a session cookie, not an API key, and state-changing requests carry the
 * session's CSRF token in `X-CSRF-Token`.
 */
const c = initContract();

export const DASHBOARD_API_BASE_PATH = '/dashboard/api';
export const CSRF_HEADER = 'x-csrf-token';

export const PlanSchema = z.enum(['free', 'pro']);
export type Plan = z.infer<typeof PlanSchema>;
export const ScopeSchema = z.enum(SCOPES);

export const UserSchema = z.object({
  id: z.string(),
  email: z.string(),
  created_at: z.string(),
});
export type User = z.infer<typeof UserSchema>;

export const OrganisationSchema = z.object({
  id: z.string(),
  name: z.string(),
  plan: PlanSchema,
  plan_changed_at: z.string().nullable(),
});
export type Organisation = z.infer<typeof OrganisationSchema>;

export const SessionSchema = z.object({
  user: UserSchema,
  organisation: OrganisationSchema,
  /** Send it back in `X-CSRF-Token` on every POST, PUT and DELETE. */
  csrf_token: z.string(),
});
export type Session = z.infer<typeof SessionSchema>;

export const ApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  /** `bxo_live_…a1B2` (or `bxo_test_…a1B2`): the prefix and the last four characters. */
  hint: z.string(),
  scopes: z.array(ScopeSchema),
  status: z.enum(['active', 'revoked']),
  created_at: z.string(),
  /** When the key was last used, to the minute; null if never. */
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  /** `true` for a key of the live data, `false` for one of the test environment. */
  livemode: z.boolean(),
  /** Requests made with the key in the last 24 hours, as the request log recorded them. */
  requests_24h: z.number().int(),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

/** What a reset of the test environment made afresh: its new sample data, as the API's reset says. */
export type TestDataCounts = TestDataReset;

export const PlanChangeSchema = z.object({
  from: PlanSchema,
  to: PlanSchema,
  changed_at: z.string(),
  changed_by: z.string().nullable(),
});
export type PlanChange = z.infer<typeof PlanChangeSchema>;

export const PlanStateSchema = z.object({
  plan: PlanSchema,
  plan_changed_at: z.string().nullable(),
  /** Newest first. */
  history: z.array(PlanChangeSchema),
});
export type PlanState = z.infer<typeof PlanStateSchema>;

const email = z.string().trim().toLowerCase().email().max(320);

export const SignupSchema = z
  .object({
    organisation_name: TextSchema.trim().min(1).max(100),
    email,
    password: z.string().min(10).max(200),
  })
  .strict();
export type Signup = z.infer<typeof SignupSchema>;

export const LoginSchema = z.object({ email, password: z.string().min(1).max(200) }).strict();
export type Login = z.infer<typeof LoginSchema>;

export const KeyCreateSchema = z
  .object({
    name: TextSchema.trim().min(1).max(100),
    scopes: z.array(ScopeSchema).min(1),
  })
  .strict();
export type KeyCreate = z.infer<typeof KeyCreateSchema>;

const errors = {
  400: ErrorSchema,
  401: ErrorSchema,
  403: ErrorSchema,
  429: ErrorSchema,
  500: ErrorSchema,
  503: ErrorSchema,
} as const;

export const dashboardContract = c.router(
  {
    session: {
      method: 'GET',
      path: '/session',
      responses: { 200: SessionSchema },
      summary: 'The signed-in user, their organisation and the CSRF token',
    },
    signup: {
      method: 'POST',
      path: '/signup',
      body: SignupSchema,
      responses: { 201: SessionSchema, 409: ErrorSchema },
      summary: 'Create an organisation (free plan) and its first user; signs in',
    },
    login: {
      method: 'POST',
      path: '/login',
      body: LoginSchema,
      responses: { 200: SessionSchema },
      summary: 'Sign in',
    },
    logout: {
      method: 'POST',
      path: '/logout',
      body: c.noBody(),
      responses: { 204: c.noBody() },
      summary: 'Sign out',
    },
    listKeys: {
      method: 'GET',
      path: '/keys',
      headers: ModeHeadersSchema,
      responses: {
        200: z.object({
          data: z.array(ApiKeySchema),
          /** How many keys may be active at once; generating more is a 409 `key_limit_reached`. */
          max_active_keys: z.number().int(),
        }),
      },
      summary: 'The organisation’s API keys in the mode of the request, newest first',
    },
    createKey: {
      method: 'POST',
      path: '/keys',
      headers: ModeHeadersSchema,
      body: KeyCreateSchema,
      responses: {
        201: z.object({
          data: z.object({
            key: ApiKeySchema,
            /** The raw key: shown this once, never stored. */
            secret: z.string(),
          }),
        }),
        409: ErrorSchema,
      },
      summary: 'Generate an API key: `bxo_test_…` in test mode, `bxo_live_…` in live mode',
    },
    revokeKey: {
      method: 'POST',
      path: '/keys/:id/revoke',
      pathParams: z.object({ id: TextSchema }),
      headers: ModeHeadersSchema,
      body: c.noBody(),
      responses: { 200: z.object({ data: ApiKeySchema }), 404: ErrorSchema },
      summary: 'Revoke an API key; it stops working on the next request',
    },
    resetTestEnvironment: {
      method: 'POST',
      path: '/test-environment/reset',
      body: c.noBody(),
      responses: { 200: z.object({ data: TestDataResetSchema }) },
      summary:
        'Empty the test environment and give it fresh sample data; its keys and webhook endpoints stay',
    },
    getPlan: {
      method: 'GET',
      path: '/plan',
      responses: { 200: z.object({ data: PlanStateSchema }) },
      summary: 'The organisation’s plan and its changes (one plan for both modes)',
    },
    setPlan: {
      method: 'PUT',
      path: '/plan',
      body: z.object({ plan: PlanSchema }).strict(),
      responses: { 200: z.object({ data: PlanStateSchema }) },
      summary: 'Upgrade or downgrade, effective immediately',
    },
    ...webhookRoutes,
    ...exportRoutes,
    ...logRoutes,
  },
  { commonResponses: errors, strictStatusCodes: true },
);
export type DashboardContract = typeof dashboardContract;
