import { WEBHOOK_EVENT_TYPES } from '@boxoffice/contract';
import { loadConfig, webhookUrlPolicy } from '../config';
import { environmentOf } from '../modules/organisations/organisation.service';
import {
  createEndpoint,
  deleteEndpoint,
  endpointOrganisation,
  listEndpoints,
  MAX_ENDPOINTS,
  toWebhookEndpointResource,
  withSecret,
} from '../modules/webhooks/webhook-endpoint.service';
import { defineCommand, requireFlag, UsageError, type Command } from './args';
import { organisationCommand, organisationListCommand } from './organisation-command';

/** The operator's URL policy: the server's own (`webhookUrlPolicy`). */
const urlPolicy = () => webhookUrlPolicy(loadConfig());

export const webhookCommands: Command[] = [
  organisationCommand({
    usage: 'webhook create --org <org_id> --url <url> [--events <type,type>] [--test]',
    summary:
      'Register a webhook endpoint (all event types unless --events; with --test, for the test environment); prints its signing secret',
    flags: ['url', 'events'],
    prepare(parsed) {
      const url = requireFlag(parsed, 'url');
      const events = parsed.flags.events
        ?.split(',')
        .map((type) => type.trim())
        .filter(Boolean);
      const known = [...WEBHOOK_EVENT_TYPES, '*'] as string[];
      const unknown = events?.filter((type) => !known.includes(type)) ?? [];
      if (events?.length === 0 || unknown.length > 0) {
        throw new UsageError(
          `--events must be one or more of: ${WEBHOOK_EVENT_TYPES.join(', ')} (or *)`,
          parsed.usage,
        );
      }
      return async (ctx) => {
        const row = await createEndpoint(
          ctx,
          { url, events: events as (typeof WEBHOOK_EVENT_TYPES)[number][] | undefined },
          urlPolicy(),
        );
        return withSecret(row, ctx.livemode);
      };
    },
  }),
  organisationListCommand({
    noun: 'webhook',
    summary: "List an organisation's webhook endpoints (without their secrets)",
    list: async (ctx) => {
      const { rows } = await listEndpoints(ctx, { page: 1, limit: MAX_ENDPOINTS });
      return rows.map((row) => toWebhookEndpointResource(row, ctx.livemode));
    },
  }),
  defineCommand({
    usage: 'webhook delete <endpoint_id>',
    summary: 'Delete a webhook endpoint, its messages and their attempts',
    positionals: ['endpoint_id'],
    prepare:
      ({ args }) =>
      async (orm) => {
        const em = orm.em.fork();
        const organisationId = await endpointOrganisation(em, args.endpoint_id);
        const { livemode } = await environmentOf(em, organisationId);
        return {
          ...(await deleteEndpoint({ em, organisationId, livemode }, args.endpoint_id)),
          deleted: true,
        };
      },
  }),
];
