import { WEBHOOK_TEST_EVENT_TYPE } from '@boxoffice/contract';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantContext } from '../../core/context';
import { conflict, notFound } from '../../core/errors';
import { idsFrom, looksLikeId, newId } from '../../core/ids';
import { iso, isoOrNull } from '../../core/iso-time';
import { clock, inTransaction } from '../../db/driver';
import { messagePayload } from './payload';
import { findEndpoint, holdEndpoint } from './webhook-endpoint.repository';
import { getEndpoint, toWebhookEndpointResource } from './webhook-endpoint.service';
import { oldestLeaseAgeSeconds } from './webhook-fanout.repository';
import * as messages from './webhook-message.repository';

/** Messages and their attempts are kept this long, then purged (`purgeWebhookMessages`). */
export const WEBHOOK_RETENTION_DAYS = 30;

/** An attempt as the dashboard shows it: the stored row, its time as the API renders times. */
export type WebhookAttemptView = messages.AttemptRow;

export interface WebhookMessageView {
  id: string;
  type: string;
  status: messages.MessageStatus;
  attempt_count: number;
  created_at: string;
  delivered_at: string | null;
  attempts: WebhookAttemptView[];
}

/** The endpoint's latest messages, newest first, each with its attempts (oldest first). */
export async function listMessages(
  ctx: TenantContext,
  endpointId: string,
  limit = 50,
): Promise<WebhookMessageView[]> {
  await getEndpoint(ctx, endpointId);
  const rows = await messages.listMessageRows(ctx.em, endpointId, limit);
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    status: row.status,
    attempt_count: row.attempt_count,
    created_at: iso(row.created_at),
    delivered_at: isoOrNull(row.delivered_at),
    attempts: (row.attempts ?? []).map((attempt) => ({
      ...attempt,
      attempted_at: iso(new Date(attempt.attempted_at)),
    })),
  }));
}

/** Sends a message again, as it was (same id, same body), whatever became of it. */
export async function resendMessage(ctx: TenantContext, messageId: string): Promise<void> {
  if (!looksLikeId('webhookMessage', messageId)) throw notFound('webhook message');
  const { organisationId } = ctx;
  const endpointId = await messages.messageEndpointId(ctx.em, { id: messageId, organisationId });
  const endpoint = endpointId && (await findEndpoint(ctx.em, { id: endpointId, organisationId }));
  if (!endpoint) throw notFound('webhook message');
  if (endpoint.status !== 'enabled') {
    throw conflict('the endpoint is disabled: enable it first', 'endpoint_disabled');
  }
  await messages.requeueMessage(ctx.em, messageId);
}

/** A `webhook.test` message to one endpoint, whatever it subscribes to; returns its id. */
export async function sendTestEvent(ctx: TenantContext, endpointId: string): Promise<string> {
  const endpoint = await getEndpoint(ctx, endpointId);
  if (endpoint.status !== 'enabled') {
    throw conflict('the endpoint is disabled: enable it first', 'endpoint_disabled');
  }
  const id = newId('webhookMessage');
  return inTransaction(ctx, async (tx) => {
    // Made only while the endpoint is there, which a deletion at the same moment waits for.
    const by = { id: endpoint.id, organisationId: tx.organisationId };
    if (!(await holdEndpoint(tx.em, by))) throw notFound('webhook endpoint');
    const at = clock(tx.em);
    const object = JSON.stringify(toWebhookEndpointResource(endpoint, tx.livemode));
    await messages.insertTestMessage(tx.em, {
      id,
      endpointId: endpoint.id,
      organisationId: tx.organisationId,
      type: WEBHOOK_TEST_EVENT_TYPE,
      payload: messagePayload(id, WEBHOOK_TEST_EVENT_TYPE, at, tx.livemode, object),
      at,
    });
    return id;
  });
}

/**
 * Deletes every message of the organisation's and their attempts, keeping its endpoints (a test
 * environment's reset).
 */
export const deleteAllWebhookMessages = (ctx: TenantContext): Promise<void> =>
  messages.deleteOrganisationMessages(ctx.em, ctx.organisationId);

/**
 * Deletes messages past their retention, and their attempts; returns how many messages. Old
 * messages are found by id, whose first characters are the time it was made.
 */
export async function purgeWebhookMessages(em: EntityManager): Promise<number> {
  const before = new Date(Date.now() - WEBHOOK_RETENTION_DAYS * 24 * 3600 * 1000);
  return messages.purgeMessages(em, idsFrom('webhookMessage', before));
}

/**
 * Seconds since the oldest message not yet delivered (nor given up) was made; 0 when none. Messages
 * a replica is sending at once are written after their first attempt: until then their lease
 * stands for them.
 */
export async function oldestUndeliveredAgeSeconds(em: EntityManager): Promise<number> {
  const [pending, leased] = await Promise.all([
    messages.oldestPendingAgeSeconds(em),
    oldestLeaseAgeSeconds(em),
  ]);
  return Math.max(0, pending ?? 0, leased ?? 0);
}

/** The organisation's delivery attempts since `since`, per UTC day (`2026-12-08`), oldest first. */
export const deliveryAttemptsPerDay = (
  ctx: TenantContext,
  since: Date,
): Promise<messages.AttemptDayRow[]> => messages.attemptsPerDay(ctx.em, ctx.organisationId, since);
