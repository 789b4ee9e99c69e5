import type { Response } from 'express';
import type { WebhookEndpointCreate, WebhookEndpointUpdate } from '@boxoffice/contract';
import type { ModeHeaders } from '@boxoffice/dashboard-contract';
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
import { dashboardSessionOf, dashboardTenantOf } from '../locals';

const secretView = (row: { secret: string; previous_secret_expires_at: Date | null }) => ({
  secret: row.secret,
  previous_secret_expires_at: isoOrNull(
    row.previous_secret_expires_at ? new Date(row.previous_secret_expires_at) : null,
  ),
});

/** Every route acts on the request's mode: its headers say which. */
type Request = { headers: ModeHeaders; res: Response };
type Params = Request & { params: { id: string } };

/**
 * Settings → Webhooks, through the same services as the public API and the operator CLI, on the
 * endpoints of the request's mode (an endpoint of the other mode is not found). Test events are
 * limited per endpoint and per organisation (`limits`): its two modes share one count.
 */
export const dashboardWebhookHandlers = (
  policy: UrlPolicy,
  limits: Pick<AttemptLimits, 'testEventsByEndpoint' | 'testEventsByOrganisation'>,
) => ({
  listWebhooks: async ({ headers, res }: Request) => {
    const ctx = await dashboardTenantOf(res, headers);
    const { rows } = await listEndpoints(ctx, { page: 1, limit: MAX_ENDPOINTS });
    return {
      status: 200 as const,
      body: { data: rows.map((row) => toWebhookEndpointResource(row, ctx.livemode)) },
    };
  },
  createWebhook: async ({ body, headers, res }: Request & { body: WebhookEndpointCreate }) => {
    const ctx = await dashboardTenantOf(res, headers);
    return {
      status: 201 as const,
      body: { data: withSecret(await createEndpoint(ctx, body, policy), ctx.livemode) },
    };
  },
  updateWebhook: async ({
    params,
    body,
    headers,
    res,
  }: Params & { body: WebhookEndpointUpdate }) => {
    const ctx = await dashboardTenantOf(res, headers);
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
  deleteWebhook: async ({ params, headers, res }: Params) => {
    const ctx = await dashboardTenantOf(res, headers);
    return {
      status: 200 as const,
      body: { data: { ...(await deleteEndpoint(ctx, params.id)), deleted: true as const } },
    };
  },
  revealWebhookSecret: async ({ params, headers, res }: Params) => {
    const ctx = await dashboardTenantOf(res, headers);
    return { status: 200 as const, body: { data: secretView(await revealSecret(ctx, params.id)) } };
  },
  rotateWebhookSecret: async ({ params, headers, res }: Params) => {
    const ctx = await dashboardTenantOf(res, headers);
    return { status: 200 as const, body: { data: secretView(await rotateSecret(ctx, params.id)) } };
  },
  testWebhook: async ({ params, headers, res }: Params) => {
    const ctx = await dashboardTenantOf(res, headers);
    // Counted before the message is made, so that parallel requests cannot pass the limits. The
    // organisation's count is its live id's: test mode does not double what it may send.
    const reserved = await reserveAttempts([
      [limits.testEventsByEndpoint, `${ctx.organisationId}:${params.id}`],
      [limits.testEventsByOrganisation, dashboardSessionOf(res).organisation.id],
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
  listWebhookMessages: async ({ params, headers, res }: Params) => {
    const ctx = await dashboardTenantOf(res, headers);
    return { status: 200 as const, body: { data: await listMessages(ctx, params.id) } };
  },
  resendWebhookMessage: async ({ params, headers, res }: Params) => {
    await resendMessage(await dashboardTenantOf(res, headers), params.id);
    return { status: 202 as const, body: { data: { message_id: params.id } } };
  },
});
