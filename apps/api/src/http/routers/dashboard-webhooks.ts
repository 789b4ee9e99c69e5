import type { Response } from 'express';
import type { WebhookEndpointCreate, WebhookEndpointUpdate } from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { isoOrNull } from '../../core/iso-time';
import { reserveAttempts, type AttemptLimits } from '../attempt-limit';
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

/** The signed-in user's organisation: a live one (the dashboard shows live data). */
const tenant = (res: Response): TenantContext => {
  const { em, organisation } = dashboardSessionOf(res);
  return { em, organisationId: organisation.id, livemode: true };
};

const secretView = (row: { secret: string; previous_secret_expires_at: Date | null }) => ({
  secret: row.secret,
  previous_secret_expires_at: isoOrNull(
    row.previous_secret_expires_at ? new Date(row.previous_secret_expires_at) : null,
  ),
});

type Params = { params: { id: string }; res: Response };

/**
 * Settings → Webhooks, through the same services as the public API and the operator CLI. Test
 * events are limited per endpoint and per organisation (`limits`).
 */
export const dashboardWebhookHandlers = (
  policy: UrlPolicy,
  limits: Pick<AttemptLimits, 'testEventsByEndpoint' | 'testEventsByOrganisation'>,
) => ({
  listWebhooks: async ({ res }: { res: Response }) => {
    const ctx = tenant(res);
    const { rows } = await listEndpoints(ctx, { page: 1, limit: MAX_ENDPOINTS });
    return {
      status: 200 as const,
      body: { data: rows.map((row) => toWebhookEndpointResource(row, ctx.livemode)) },
    };
  },
  createWebhook: async ({ body, res }: { body: WebhookEndpointCreate; res: Response }) => {
    const ctx = tenant(res);
    return {
      status: 201 as const,
      body: { data: withSecret(await createEndpoint(ctx, body, policy), ctx.livemode) },
    };
  },
  updateWebhook: async ({ params, body, res }: Params & { body: WebhookEndpointUpdate }) => {
    const ctx = tenant(res);
    return {
      status: 200 as const,
      body: {
        data: toWebhookEndpointResource(
          await updateEndpoint(ctx, params.id, body, policy),
          ctx.livemode,
        ),
      },
    };
  },
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
  testWebhook: async ({ params, res }: Params) => {
    const ctx = tenant(res);
    // Counted before the message is made, so that parallel requests cannot pass the limits.
    const reserved = await reserveAttempts([
      [limits.testEventsByEndpoint, `${ctx.organisationId}:${params.id}`],
      [limits.testEventsByOrganisation, ctx.organisationId],
    ]);
    let messageId: string;
    try {
      messageId = await sendTestEvent(ctx, params.id);
    } catch (error) {
      // Nothing sent (no such endpoint, disabled, database away): not counted.
      await reserved.release().catch(() => undefined);
      throw error;
    }
    return { status: 202 as const, body: { data: { message_id: messageId } } };
  },
  listWebhookMessages: async ({ params, res }: Params) => ({
    status: 200 as const,
    body: { data: await listMessages(tenant(res), params.id) },
  }),
  resendWebhookMessage: async ({ params, res }: Params) => {
    await resendMessage(tenant(res), params.id);
    return { status: 202 as const, body: { data: { message_id: params.id } } };
  },
});
