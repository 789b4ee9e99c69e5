import { AppError } from '../core/errors';
import {
  generateKey,
  listKeys,
  parseScopes,
  revokeKey,
  toApiKeyView,
} from '../modules/api-keys/api-key.service';
import { defineCommand, requireFlag, UsageError, type Command } from './args';
import { organisationCommand, organisationListCommand } from './organisation-command';

export const keyCommands: Command[] = [
  organisationCommand({
    usage:
      'key create --org <org_id> --scopes <read,write,checkins:write> [--name <name>] [--test]',
    summary:
      'Generate an API key (with --test, a bxo_test_ key of the test environment); the key itself is printed this once and never again',
    flags: ['scopes', 'name'],
    prepare(parsed) {
      const scopes = requireFlag(parsed, 'scopes').split(',');
      try {
        parseScopes(scopes);
      } catch (error) {
        if (error instanceof AppError) throw new UsageError(error.message, parsed.usage);
        throw error;
      }
      return async (ctx) => {
        const { apiKey, key } = await generateKey(ctx.em, {
          organisationId: ctx.organisationId,
          name: parsed.flags.name,
          scopes,
        });
        // The raw key sits next to the id: this output is the only place it ever appears.
        const { id, ...view } = toApiKeyView(apiKey);
        return { id, key, ...view };
      };
    },
  }),
  organisationListCommand({
    noun: 'key',
    summary: "List an organisation's API keys, newest first (hints only, never the keys)",
    list: async (ctx) => (await listKeys(ctx.em, ctx.organisationId)).map(toApiKeyView),
  }),
  defineCommand({
    usage: 'key revoke <key_id>',
    summary: 'Revoke an API key; it stops working on the next request',
    positionals: ['key_id'],
    prepare:
      ({ args }) =>
      async (orm) =>
        toApiKeyView(await revokeKey(orm.em.fork(), args.key_id)),
  }),
];
