import { WEBHOOK_EVENT_TYPES } from '@boxoffice/contract';
import { loadConfig, webhookUrlPolicy } from '../config';
import { getOrganisation } from '../modules/organisations/organisation.service';
import {
  createEndpoint,
  deleteEndpoint,
  endpointOrganisation,
  listEndpoints,
  MAX_ENDPOINTS,
  toWebhookEndpointResource,
  withSecret,
} from '../modules/webhooks/webhook-endpoint.service';
import { parseCommandArgs, requireFlag, UsageError, type Command } from './args';
import { organisationListCommand } from './organisation-list';

const createUsage = 'webhook create --org <org_id> --url <url> [--events <type,type>]';
const deleteUsage = 'webhook delete <endpoint_id>';

/** The operator's URL policy: the server's own (`webhookUrlPolicy`). */
const urlPolicy = () => webhookUrlPolicy(loadConfig());

export const webhookCommands: Command[] = [
  {
    path: ['webhook', 'create'],
    usage: createUsage,
    summary:
      'Register a webhook endpoint (all event types unless --events); prints its signing secret',
    parse(argv) {
      const parsed = parseCommandArgs(argv, {
        usage: createUsage,
        flags: ['org', 'url', 'events'],
      });
      const organisationId = requireFlag(parsed, 'org', createUsage);
      const url = requireFlag(parsed, 'url', createUsage);
      const events = parsed.flags.events
        ?.split(',')
        .map((type) => type.trim())
        .filter(Boolean);
      const known = [...WEBHOOK_EVENT_TYPES, '*'] as string[];
      const unknown = events?.filter((type) => !known.includes(type)) ?? [];
      if (events?.length === 0 || unknown.length > 0) {
        throw new UsageError(
          `--events must be one or more of: ${WEBHOOK_EVENT_TYPES.join(', ')} (or *)`,
          createUsage,
        );
      }
      return async (orm) => {
        const em = orm.em.fork();
        await getOrganisation(em, organisationId);
        const row = await createEndpoint(
          { em, organisationId },
          { url, events: events as (typeof WEBHOOK_EVENT_TYPES)[number][] | undefined },
          urlPolicy(),
        );
        return withSecret(row);
      };
    },
  },
  organisationListCommand({
    noun: 'webhook',
    summary: "List an organisation's webhook endpoints (without their secrets)",
    list: async (em, organisationId) => {
      const { rows } = await listEndpoints(
        { em, organisationId },
        { page: 1, limit: MAX_ENDPOINTS },
      );
      return rows.map(toWebhookEndpointResource);
    },
  }),
  {
    path: ['webhook', 'delete'],
    usage: deleteUsage,
    summary: 'Delete a webhook endpoint, its messages and their attempts',
    parse(argv) {
      const { args } = parseCommandArgs(argv, {
        usage: deleteUsage,
        positionals: ['endpoint_id'],
      });
      return async (orm) => {
        const em = orm.em.fork();
        const organisationId = await endpointOrganisation(em, args.endpoint_id);
        return {
          ...(await deleteEndpoint({ em, organisationId }, args.endpoint_id)),
          deleted: true,
        };
      };
    },
  },
];
