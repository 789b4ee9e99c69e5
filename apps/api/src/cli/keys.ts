import { AppError } from '../core/errors';
import {
  generateKey,
  listKeys,
  parseScopes,
  revokeKey,
  toApiKeyView,
} from '../modules/api-keys/api-key.service';
import { parseCommandArgs, requireFlag, UsageError, type Command } from './args';
import { organisationListCommand } from './organisation-list';

const createUsage =
  'key create --org <org_id> --scopes <read,write,checkins:write> [--name <name>]';
const revokeUsage = 'key revoke <key_id>';

export const keyCommands: Command[] = [
  {
    path: ['key', 'create'],
    usage: createUsage,
    summary: 'Generate an API key; the key itself is printed this once and never again',
    parse(argv) {
      const parsed = parseCommandArgs(argv, {
        usage: createUsage,
        flags: ['org', 'scopes', 'name'],
      });
      const organisationId = requireFlag(parsed, 'org', createUsage);
      const scopes = requireFlag(parsed, 'scopes', createUsage).split(',');
      try {
        parseScopes(scopes);
      } catch (error) {
        if (error instanceof AppError) throw new UsageError(error.message, createUsage);
        throw error;
      }
      return async (orm) => {
        const { apiKey, key } = await generateKey(orm.em.fork(), {
          organisationId,
          name: parsed.flags.name,
          scopes,
        });
        // The raw key sits next to the id: this output is the only place it ever appears.
        const { id, ...view } = toApiKeyView(apiKey);
        return { id, key, ...view };
      };
    },
  },
  organisationListCommand({
    noun: 'key',
    summary: "List an organisation's API keys, newest first (hints only, never the keys)",
    list: async (em, organisationId) => (await listKeys(em, organisationId)).map(toApiKeyView),
  }),
  {
    path: ['key', 'revoke'],
    usage: revokeUsage,
    summary: 'Revoke an API key; it stops working on the next request',
    parse(argv) {
      const { args } = parseCommandArgs(argv, { usage: revokeUsage, positionals: ['key_id'] });
      return async (orm) => toApiKeyView(await revokeKey(orm.em.fork(), args.key_id));
    },
  },
];
