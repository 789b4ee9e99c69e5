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
import { iso } from '../../core/iso-time';
import { clock, inTransaction } from '../../db/driver';
import { secretBox } from '../../db/secret-keys';
import { lockOrganisation } from '../organisations/organisation.service';
import { newSigningSecret, SECRET_OVERLAP_HOURS } from './signing';
import { checkUrl, UrlRefused, type UrlPolicy } from './url-guard';
import * as endpoints from './webhook-endpoint.repository';
import type { EndpointRow } from './webhook-endpoint.repository';
import { deleteEndpointMessages } from './webhook-message.repository';

export type { EndpointRow } from './webhook-endpoint.repository';

/** Endpoints an organisation may have: enough for every integration, not a fan-out service. */
export const MAX_ENDPOINTS = 20;

/** The endpoint as the API renders it; `livemode` says whether it is a live or a test one. */
export const toWebhookEndpointResource = (
  row: EndpointRow,
  livemode: boolean,
): WebhookEndpoint => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: row.events as WebhookEndpoint['events'],
  status: row.status,
  disabled_reason: row.disabled_reason,
  livemode,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});

export const withSecret = (row: EndpointRow, livemode: boolean): WebhookEndpointWithSecret => ({
  ...toWebhookEndpointResource(row, livemode),
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
  const rows = await endpoints.listEndpoints(ctx.em, ctx.organisationId, {
    limit: page.limit,
    offset: (page.page - 1) * page.limit,
  });
  const total = await endpoints.countEndpoints(ctx.em, ctx.organisationId);
  return { rows, total };
}

export async function getEndpoint(
  ctx: TenantContext,
  id: string,
  options: { lock?: boolean } = {},
): Promise<EndpointRow> {
  if (!looksLikeId('webhookEndpoint', id)) throw notFound('webhook endpoint');
  const row = await endpoints.findEndpoint(
    ctx.em,
    { id, organisationId: ctx.organisationId },
    options.lock,
  );
  if (!row) throw notFound('webhook endpoint');
  return row;
}

/** A new endpoint; its row as written, but with its secret in plain text (to show it once). */
export function createEndpoint(
  ctx: TenantContext,
  body: WebhookEndpointCreate,
  policy: UrlPolicy,
): Promise<EndpointRow> {
  return inTransaction(ctx, async (tx) => {
    const url = await validUrl(body.url, policy);
    await lockOrganisation(tx.em, tx.organisationId);
    if ((await endpoints.countEndpoints(tx.em, tx.organisationId)) >= MAX_ENDPOINTS) {
      throw conflict(
        `an organisation has at most ${MAX_ENDPOINTS} webhook endpoints; delete one first`,
        'endpoint_limit_reached',
      );
    }
    const secret = newSigningSecret();
    const row = await endpoints.insertEndpoint(tx.em, {
      id: newId('webhookEndpoint'),
      organisationId: tx.organisationId,
      url,
      description: body.description ?? null,
      events: normaliseEvents(body.events),
      secret: secretBox(tx.em).seal(secret),
      at: clock(tx.em),
    });
    return { ...row, secret };
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
    const status = body.status ?? current.status;
    let disabledReason = current.disabled_reason;
    if (status === 'enabled') disabledReason = null;
    else if (current.status === 'enabled') disabledReason = 'disabled by request';
    return endpoints.updateEndpoint(tx.em, {
      id,
      url: body.url === undefined ? current.url : await validUrl(body.url, policy),
      events: body.events === undefined ? current.events : normaliseEvents(body.events),
      description: body.description === undefined ? current.description : body.description,
      status,
      disabled_reason: disabledReason,
      // Enabled again: its failures start over.
      failing_since:
        status === 'enabled' && current.status === 'disabled' ? null : current.failing_since,
      at: clock(tx.em),
    });
  });
}

/**
 * Deletes an endpoint with its messages and their attempts (no foreign key cascades: see the
 * migration `webhook_log_keys`). Deleting the endpoint waits for whatever holds it while writing
 * its messages and attempts (a fan-out round, the recording of attempts), so what they wrote is
 * deleted too; deleting a message waits for the recording of a retry under way, so the attempts
 * are deleted after the messages, in a statement that sees it.
 */
export function deleteEndpoint(ctx: TenantContext, id: string): Promise<{ id: string }> {
  if (!looksLikeId('webhookEndpoint', id)) throw notFound('webhook endpoint');
  return inTransaction(ctx, async (tx) => {
    const by = { id, organisationId: tx.organisationId };
    if (!(await endpoints.deleteEndpointRow(tx.em, by))) throw notFound('webhook endpoint');
    await deleteEndpointMessages(tx.em, id);
    return { id };
  });
}

/**
 * A new signing secret. The previous one keeps signing beside it (a second signature in
 * `webhook-signature`) for `overlapHours`, so receivers can switch without missing a message.
 * The row as written, with the new secret in plain text.
 */
export function rotateSecret(
  ctx: TenantContext,
  id: string,
  overlapHours = SECRET_OVERLAP_HOURS,
): Promise<EndpointRow> {
  return inTransaction(ctx, async (tx) => {
    await getEndpoint(tx, id, { lock: true });
    const at = clock(tx.em);
    const secret = newSigningSecret();
    const row = await endpoints.rotateEndpointSecret(tx.em, {
      id,
      secret: secretBox(tx.em).seal(secret),
      until: new Date(at.getTime() + overlapHours * 3600 * 1000),
      at,
    });
    return { ...row, secret };
  });
}

/** The organisation an endpoint belongs to (the operator CLI acts by endpoint id alone). */
export async function endpointOrganisation(em: TenantContext['em'], id: string): Promise<string> {
  if (!looksLikeId('webhookEndpoint', id)) throw notFound('webhook endpoint');
  const organisationId = await endpoints.endpointOrganisationId(em, id);
  if (!organisationId) throw notFound('webhook endpoint');
  return organisationId;
}
