import type { Response } from 'express';
import type { WebhookEndpointCreate, WebhookEndpointUpdate } from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { isoOrNull } from '../../core/iso-time';
import type { UrlPolicy } from '../../modules/webhooks/url-guard';
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  MAX_ENDPOINTS,
  rotateSecret,
  toWebhookEndpointResource,
  updateEndpoint,
  withSecret,
} from '../../modules/webhooks/webhook-endpoint.service';
import {
  listMessages,
  resendMessage,
  sendTestEvent,
} from '../../modules/webhooks/webhook-message.service';
import { revealSecret } from '../../modules/webhooks/webhook-secret.service';
import { dashboardSessionOf } from '../locals';

const tenant = (res: Response): TenantContext => {
  const { em, organisation } = dashboardSessionOf(res);
  return { em, organisationId: organisation.id };
};

const secretView = (row: { secret: string; previous_secret_expires_at: Date | null }) => ({
  secret: row.secret,
  previous_secret_expires_at: isoOrNull(
    row.previous_secret_expires_at ? new Date(row.previous_secret_expires_at) : null,
  ),
});

type Params = { params: { id: string }; res: Response };

/** Settings → Webhooks, through the same services as the public API and the operator CLI. */
export const dashboardWebhookHandlers = (policy: UrlPolicy) => ({
  listWebhooks: async ({ res }: { res: Response }) => {
    const { rows } = await listEndpoints(tenant(res), { page: 1, limit: MAX_ENDPOINTS });
    return { status: 200 as const, body: { data: rows.map(toWebhookEndpointResource) } };
  },
  createWebhook: async ({ body, res }: { body: WebhookEndpointCreate; res: Response }) => ({
    status: 201 as const,
    body: { data: withSecret(await createEndpoint(tenant(res), body, policy)) },
  }),
  updateWebhook: async ({ params, body, res }: Params & { body: WebhookEndpointUpdate }) => ({
    status: 200 as const,
    body: {
      data: toWebhookEndpointResource(await updateEndpoint(tenant(res), params.id, body, policy)),
    },
  }),
  deleteWebhook: async ({ params, res }: Params) => ({
    status: 200 as const,
    body: { data: { ...(await deleteEndpoint(tenant(res), params.id)), deleted: true as const } },
  }),
  revealWebhookSecret: async ({ params, res }: Params) => ({
    status: 200 as const,
    body: { data: secretView(await revealSecret(tenant(res), params.id)) },
  }),
  rotateWebhookSecret: async ({ params, res }: Params) => ({
    status: 200 as const,
    body: { data: secretView(await rotateSecret(tenant(res), params.id)) },
  }),
  testWebhook: async ({ params, res }: Params) => ({
    status: 202 as const,
    body: { data: { message_id: await sendTestEvent(tenant(res), params.id) } },
  }),
  listWebhookMessages: async ({ params, res }: Params) => ({
    status: 200 as const,
    body: { data: await listMessages(tenant(res), params.id) },
  }),
  resendWebhookMessage: async ({ params, res }: Params) => {
    await resendMessage(tenant(res), params.id);
    return { status: 202 as const, body: { data: { message_id: params.id } } };
  },
});
