import { initContract } from '@ts-rest/core';
import {
  DeletedSchema,
  ErrorSchema,
  TextSchema,
  WebhookEndpointCreateSchema,
  WebhookEndpointSchema,
  WebhookEndpointUpdateSchema,
  WebhookEndpointWithSecretSchema,
} from '@boxoffice/contract';
import { z } from 'zod';
import { ModeHeadersSchema } from './mode';

export type { WebhookEndpoint } from '@boxoffice/contract';
export { WEBHOOK_EVENT_TYPES } from '@boxoffice/contract';

const c = initContract();

export const WebhookAttemptSchema = z.object({
  attempted_at: z.string(),
  outcome: z.enum(['succeeded', 'failed']),
  status_code: z.number().int().nullable(),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
  response_excerpt: z.string().nullable(),
});
export type WebhookAttempt = z.infer<typeof WebhookAttemptSchema>;

export const WebhookMessageSchema = z.object({
  id: z.string(),
  type: z.string(),
  status: z.enum(['pending', 'delivered', 'failed', 'cancelled']),
  attempt_count: z.number().int(),
  created_at: z.string(),
  delivered_at: z.string().nullable(),
  attempts: z.array(WebhookAttemptSchema),
});
export type WebhookMessage = z.infer<typeof WebhookMessageSchema>;

const id = z.object({ id: TextSchema });

/** A message handed to the queue (202), or why not: no such endpoint or message, or disabled. */
const queuedResponses = {
  202: z.object({ data: z.object({ message_id: z.string() }) }),
  404: ErrorSchema,
  409: ErrorSchema,
};

/**
 * Settings → Webhooks: the organisation's endpoints, their secrets and their deliveries, in the
 * mode of the request (`X-Boxoffice-Mode`): each mode has endpoints of its own.
 */
export const webhookRoutes = {
  listWebhooks: {
    method: 'GET',
    path: '/webhooks',
    headers: ModeHeadersSchema,
    responses: { 200: z.object({ data: z.array(WebhookEndpointSchema) }) },
    summary: 'The organisation’s webhook endpoints, oldest first',
  },
  createWebhook: {
    method: 'POST',
    path: '/webhooks',
    headers: ModeHeadersSchema,
    body: WebhookEndpointCreateSchema,
    responses: {
      201: z.object({ data: WebhookEndpointWithSecretSchema }),
      409: ErrorSchema,
      422: ErrorSchema,
    },
    summary: 'Add a webhook endpoint',
  },
  updateWebhook: {
    method: 'PATCH',
    path: '/webhooks/:id',
    headers: ModeHeadersSchema,
    pathParams: id,
    body: WebhookEndpointUpdateSchema,
    responses: {
      200: z.object({ data: WebhookEndpointSchema }),
      404: ErrorSchema,
      422: ErrorSchema,
    },
    summary: 'Edit, disable or enable a webhook endpoint',
  },
  deleteWebhook: {
    method: 'DELETE',
    path: '/webhooks/:id',
    headers: ModeHeadersSchema,
    pathParams: id,
    body: c.noBody(),
    responses: { 200: z.object({ data: DeletedSchema }), 404: ErrorSchema },
    summary: 'Delete a webhook endpoint and its messages',
  },
  revealWebhookSecret: {
    method: 'GET',
    path: '/webhooks/:id/secret',
    headers: ModeHeadersSchema,
    pathParams: id,
    responses: {
      200: z.object({
        data: z.object({
          secret: z.string(),
          /** During a rotation, until when the previous secret still signs. */
          previous_secret_expires_at: z.string().nullable(),
        }),
      }),
      404: ErrorSchema,
    },
    summary: 'The endpoint’s signing secret',
  },
  rotateWebhookSecret: {
    method: 'POST',
    path: '/webhooks/:id/rotate-secret',
    headers: ModeHeadersSchema,
    pathParams: id,
    body: c.noBody(),
    responses: {
      200: z.object({
        data: z.object({ secret: z.string(), previous_secret_expires_at: z.string().nullable() }),
      }),
      404: ErrorSchema,
    },
    summary: 'A new signing secret; the previous one keeps signing for 24 hours',
  },
  testWebhook: {
    method: 'POST',
    path: '/webhooks/:id/test',
    headers: ModeHeadersSchema,
    pathParams: id,
    body: c.noBody(),
    responses: queuedResponses,
    summary: 'Send a `webhook.test` event to the endpoint',
  },
  listWebhookMessages: {
    method: 'GET',
    path: '/webhooks/:id/messages',
    headers: ModeHeadersSchema,
    pathParams: id,
    responses: { 200: z.object({ data: z.array(WebhookMessageSchema) }), 404: ErrorSchema },
    summary: 'The endpoint’s latest 50 messages, newest first, with their attempts',
  },
  resendWebhookMessage: {
    method: 'POST',
    path: '/webhook-messages/:id/resend',
    headers: ModeHeadersSchema,
    pathParams: id,
    body: c.noBody(),
    responses: queuedResponses,
    summary: 'Send a message again (same id and body)',
  },
} as const;
