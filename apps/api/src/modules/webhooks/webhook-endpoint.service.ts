import {
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpoint,
  type WebhookEndpointCreate,
  type WebhookEndpointUpdate,
  type WebhookEndpointWithSecret,
} from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { AppError, conflict, notFound } from '../../core/errors';
import { looksLikeId, newId } from '../../core/ids';
import { inTransaction, iso } from '../../db/context';
import { run } from '../../db/sql';
import { lockOrganisation } from '../organisations/organisation.service';
import { newSigningSecret, SECRET_OVERLAP_HOURS } from './signing';
import { checkUrl, UrlRefused, type UrlPolicy } from './url-guard';

/** Endpoints an organisation may have: enough for every integration, not a fan-out service. */
export const MAX_ENDPOINTS = 20;

/** A row of `webhook_endpoints` as read by the services (timestamps as `Date`). */
export interface EndpointRow {
  id: string;
  organisation_id: string;
  url: string;
  description: string | null;
  events: string[];
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, organisation_id, url, description, events, status, disabled_reason, secret,
  previous_secret, previous_secret_expires_at, failing_since, created_at, updated_at`;

export const toWebhookEndpointResource = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: row.events as WebhookEndpoint['events'],
  status: row.status,
  disabled_reason: row.disabled_reason,
  created_at: iso(new Date(row.created_at)),
  updated_at: iso(new Date(row.updated_at)),
});

export const withSecret = (row: EndpointRow): WebhookEndpointWithSecret => ({
  ...toWebhookEndpointResource(row),
  secret: row.secret,
});

/** `["*"]` alone, or the named types in their canonical order, each once. */
function normaliseEvents(events: readonly string[] | undefined): string[] {
  if (!events || events.includes('*')) return ['*'];
  return WEBHOOK_EVENT_TYPES.filter((type) => events.includes(type));
}

async function validUrl(raw: string, policy: UrlPolicy): Promise<string> {
  try {
    return (await checkUrl(raw, policy)).toString();
  } catch (error) {
    if (error instanceof UrlRefused) throw new AppError(422, 'invalid_webhook_url', error.message);
    throw error;
  }
}

export async function listEndpoints(
  ctx: TenantContext,
  page: { page: number; limit: number },
): Promise<{ rows: EndpointRow[]; total: number }> {
  const rows = await run<EndpointRow>(ctx.em, {
    text: `select ${COLUMNS} from webhook_endpoints where organisation_id = ?
      order by created_at, id limit ? offset ?`,
    params: [ctx.organisationId, page.limit, (page.page - 1) * page.limit],
  });
  const [count] = await run<{ n: string }>(ctx.em, {
    text: `select count(*) as n from webhook_endpoints where organisation_id = ?`,
    params: [ctx.organisationId],
  });
  return { rows, total: Number(count?.n ?? 0) };
}

export async function getEndpoint(
  ctx: TenantContext,
  id: string,
  options: { lock?: boolean } = {},
): Promise<EndpointRow> {
  if (!looksLikeId('webhookEndpoint', id)) throw notFound('webhook endpoint');
  const [row] = await run<EndpointRow>(ctx.em, {
    text: `select ${COLUMNS} from webhook_endpoints where id = ? and organisation_id = ?${options.lock ? ' for update' : ''}`,
    params: [id, ctx.organisationId],
  });
  if (!row) throw notFound('webhook endpoint');
  return row;
}

export function createEndpoint(
  ctx: TenantContext,
  body: WebhookEndpointCreate,
  policy: UrlPolicy,
): Promise<EndpointRow> {
  return inTransaction(ctx, async (tx) => {
    const url = await validUrl(body.url, policy);
    await lockOrganisation(tx.em, tx.organisationId);
    const [count] = await run<{ n: string }>(tx.em, {
      text: `select count(*) as n from webhook_endpoints where organisation_id = ?`,
      params: [tx.organisationId],
    });
    if (Number(count?.n ?? 0) >= MAX_ENDPOINTS) {
      throw conflict(
        `an organisation has at most ${MAX_ENDPOINTS} webhook endpoints; delete one first`,
        'endpoint_limit_reached',
      );
    }
    const [row] = await run<EndpointRow>(tx.em, {
      text: `insert into webhook_endpoints (id, organisation_id, url, description, events, secret)
       values (?, ?, ?, ?, array(select jsonb_array_elements_text(?::jsonb)), ?) returning ${COLUMNS}`,
      params: [
        newId('webhookEndpoint'),
        tx.organisationId,
        url,
        body.description ?? null,
        JSON.stringify(normaliseEvents(body.events)),
        newSigningSecret(),
      ],
    });
    return row!;
  });
}

export function updateEndpoint(
  ctx: TenantContext,
  id: string,
  body: WebhookEndpointUpdate,
  policy: UrlPolicy,
): Promise<EndpointRow> {
  return inTransaction(ctx, async (tx) => {
    const current = await getEndpoint(tx, id, { lock: true });
    const url = body.url === undefined ? current.url : await validUrl(body.url, policy);
    const events = body.events === undefined ? current.events : normaliseEvents(body.events);
    const description = body.description === undefined ? current.description : body.description;
    const status = body.status ?? current.status;
    let disabledReason = current.disabled_reason;
    if (status === 'enabled') disabledReason = null;
    else if (current.status === 'enabled') disabledReason = 'disabled by request';
    const [row] = await run<EndpointRow>(tx.em, {
      text: `update webhook_endpoints set url = ?, events = array(select jsonb_array_elements_text(?::jsonb)), description = ?, status = ?,
         disabled_reason = ?,
         failing_since = case when ? = 'enabled' and status = 'disabled' then null else failing_since end,
         updated_at = now()
       where id = ? returning ${COLUMNS}`,
      params: [url, JSON.stringify(events), description, status, disabledReason, status, id],
    });
    return row!;
  });
}

/**
 * Deletes an endpoint with its messages and their attempts (no foreign key cascades: see the
 * migration `webhook_log_keys`). Deleting the endpoint waits for whatever holds it while writing
 * its messages and attempts (a fan-out round, the recording of first attempts), so what they wrote
 * is deleted too; deleting a message waits for the recording of a retry under way, so the attempts
 * are deleted after the messages, in a statement that sees it.
 */
export function deleteEndpoint(ctx: TenantContext, id: string): Promise<{ id: string }> {
  if (!looksLikeId('webhookEndpoint', id)) throw notFound('webhook endpoint');
  return inTransaction(ctx, async (tx) => {
    const rows = await run<{ id: string }>(tx.em, {
      text: `delete from webhook_endpoints where id = ? and organisation_id = ? returning id`,
      params: [id, ctx.organisationId],
    });
    if (rows.length === 0) throw notFound('webhook endpoint');
    const messages = await run<{ id: string }>(tx.em, {
      text: `delete from webhook_messages where endpoint_id = ? returning id`,
      params: [id],
    });
    await run(tx.em, {
      text: `delete from webhook_attempts where message_id = any(?::text[])`,
      params: [messages.map((message) => message.id)],
    });
    return { id };
  });
}

/**
 * A new signing secret. The previous one keeps signing beside it (a second signature in
 * `webhook-signature`) for `overlapHours`, so receivers can switch without missing a message.
 */
export function rotateSecret(
  ctx: TenantContext,
  id: string,
  overlapHours = SECRET_OVERLAP_HOURS,
): Promise<EndpointRow> {
  return inTransaction(ctx, async (tx) => {
    await getEndpoint(tx, id, { lock: true });
    const [row] = await run<EndpointRow>(tx.em, {
      text: `update webhook_endpoints set previous_secret = secret, secret = ?,
         previous_secret_expires_at = now() + make_interval(hours => ?), updated_at = now()
       where id = ? returning ${COLUMNS}`,
      params: [newSigningSecret(), overlapHours, id],
    });
    return row!;
  });
}

/** The secrets that sign now: the current one, and the previous one during its overlap. */
export function signingSecrets(
  row: Pick<EndpointRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  now = new Date(),
): string[] {
  const previousValid =
    row.previous_secret &&
    row.previous_secret_expires_at &&
    new Date(row.previous_secret_expires_at).getTime() > now.getTime();
  return previousValid ? [row.secret, row.previous_secret!] : [row.secret];
}

/** The organisation an endpoint belongs to (the operator CLI acts by endpoint id alone). */
export async function endpointOrganisation(em: TenantContext['em'], id: string): Promise<string> {
  if (!looksLikeId('webhookEndpoint', id)) throw notFound('webhook endpoint');
  const [row] = await run<{ organisation_id: string }>(em, {
    text: `select organisation_id from webhook_endpoints where id = ?`,
    params: [id],
  });
  if (!row) throw notFound('webhook endpoint');
  return row.organisation_id;
}
