import { WEBHOOK_TEST_EVENT_TYPE } from '@boxoffice/contract';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantContext } from '../../core/context';
import { conflict, notFound } from '../../core/errors';
import { idsFrom, looksLikeId, newId } from '../../core/ids';
import { iso, isoOrNull } from '../../db/context';
import { run } from '../../db/sql';
import { getEndpoint, toWebhookEndpointResource } from './webhook-endpoint.service';

/** Messages and their attempts are kept this long, then purged (`purgeWebhookMessages`). */
export const WEBHOOK_RETENTION_DAYS = 30;

export interface WebhookAttemptView {
  attempted_at: string;
  outcome: 'succeeded' | 'failed';
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

export interface WebhookMessageView {
  id: string;
  type: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempt_count: number;
  created_at: string;
  delivered_at: string | null;
  attempts: WebhookAttemptView[];
}

interface MessageRow {
  id: string;
  type: string;
  status: WebhookMessageView['status'];
  attempt_count: number;
  created_at: Date;
  delivered_at: Date | null;
  attempts: (Omit<WebhookAttemptView, 'attempted_at'> & { attempted_at: string })[] | null;
}

/** The endpoint's latest messages, newest first, each with its attempts (oldest first). */
export async function listMessages(
  ctx: TenantContext,
  endpointId: string,
  limit = 50,
): Promise<WebhookMessageView[]> {
  await getEndpoint(ctx, endpointId);
  const rows = await run<MessageRow>(ctx.em, {
    text: `select m.id, m.type, m.status, m.attempt_count, m.created_at, m.delivered_at,
            (select json_agg(json_build_object(
                      'attempted_at', a.attempted_at, 'outcome', a.outcome,
                      'status_code', a.status_code, 'duration_ms', a.duration_ms,
                      'error', a.error, 'response_excerpt', a.response_excerpt) order by a.id)
               from webhook_attempts a where a.message_id = m.id) as attempts
       from webhook_messages m
      where m.endpoint_id = ?
      order by m.created_at desc, m.id desc
      limit ?`,
    params: [endpointId, limit],
  });
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    status: row.status,
    attempt_count: row.attempt_count,
    created_at: iso(new Date(row.created_at)),
    delivered_at: isoOrNull(row.delivered_at ? new Date(row.delivered_at) : null),
    attempts: (row.attempts ?? []).map((attempt) => ({
      ...attempt,
      attempted_at: iso(new Date(attempt.attempted_at)),
    })),
  }));
}

/** Sends a message again, as it was (same id, same body), whatever became of it. */
export async function resendMessage(ctx: TenantContext, messageId: string): Promise<void> {
  if (!looksLikeId('webhookMessage', messageId)) throw notFound('webhook message');
  const [row] = await run<{ endpoint_status: string }>(ctx.em, {
    text: `select e.status as endpoint_status from webhook_messages m
       join webhook_endpoints e on e.id = m.endpoint_id
      where m.id = ? and m.organisation_id = ?`,
    params: [messageId, ctx.organisationId],
  });
  if (!row) throw notFound('webhook message');
  if (row.endpoint_status !== 'enabled') {
    throw conflict('the endpoint is disabled: enable it first', 'endpoint_disabled');
  }
  await run(ctx.em, {
    text: `update webhook_messages set status = 'pending', queued = false where id = ?`,
    params: [messageId],
  });
}

/** A `webhook.test` message to one endpoint, whatever it subscribes to; returns its id. */
export async function sendTestEvent(ctx: TenantContext, endpointId: string): Promise<string> {
  const endpoint = await getEndpoint(ctx, endpointId);
  if (endpoint.status !== 'enabled') {
    throw conflict('the endpoint is disabled: enable it first', 'endpoint_disabled');
  }
  const id = newId('webhookMessage');
  const payload = JSON.stringify({
    id,
    type: WEBHOOK_TEST_EVENT_TYPE,
    created_at: new Date().toISOString(),
    data: { object: toWebhookEndpointResource(endpoint) },
  });
  // Made only while the endpoint is there, which a deletion at the same moment waits for.
  const made = await run<{ id: string }>(ctx.em, {
    text: `insert into webhook_messages (id, endpoint_id, organisation_id, type, payload, queued)
     select ?, e.id, e.organisation_id, ?, ?, false from webhook_endpoints e
      where e.id = ? and e.organisation_id = ? for key share
     returning id`,
    params: [id, WEBHOOK_TEST_EVENT_TYPE, payload, endpoint.id, ctx.organisationId],
  });
  if (made.length === 0) throw notFound('webhook endpoint');
  return id;
}

/**
 * Deletes messages past their retention, and their attempts; returns how many messages. Old
 * messages are found by id, whose first characters are the time it was made.
 */
export async function purgeWebhookMessages(em: EntityManager): Promise<number> {
  const before = new Date(Date.now() - WEBHOOK_RETENTION_DAYS * 24 * 3600 * 1000);
  const [row] = await run<{ purged: string }>(em, {
    text: `with purged as (
       delete from webhook_messages where id < ? returning id
     ),
     attempts as (
       delete from webhook_attempts where message_id in (select id from purged)
     )
     select count(*) as purged from purged`,
    params: [idsFrom('webhookMessage', before)],
  });
  return Number(row?.purged ?? 0);
}

/**
 * Seconds since the oldest message not yet delivered (nor given up) was made; 0 when none. Messages
 * a replica is sending at once are written after their first attempt: until then their lease
 * stands for them.
 */
export async function oldestUndeliveredAgeSeconds(em: EntityManager): Promise<number> {
  const [row] = await run<{ age: string | null }>(em, {
    text: `select extract(epoch from now() - least(
         (select min(created_at) from webhook_messages where status = 'pending'),
         (select min(first_change_at) from webhook_fanout_leases))) as age`,
    params: [],
  });
  return row?.age ? Math.max(0, Number(row.age)) : 0;
}
