import type { EntityManager } from '../db/orm';
import { getOrganisation } from '../modules/organisations/organisation.service';
import { parseCommandArgs, requireFlag, type Command } from './args';

/**
 * `<noun> list --org <org_id>`: what one organisation has. An unknown organisation is an error,
 * not an empty list.
 */
export function organisationListCommand(command: {
  noun: string;
  summary: string;
  list: (em: EntityManager, organisationId: string) => Promise<unknown[]>;
}): Command {
  const usage = `${command.noun} list --org <org_id>`;
  return {
    path: [command.noun, 'list'],
    usage,
    summary: command.summary,
    parse(argv) {
      const parsed = parseCommandArgs(argv, { usage, flags: ['org'] });
      const organisationId = requireFlag(parsed, 'org', usage);
      return async (orm) => {
        const em = orm.em.fork();
        await getOrganisation(em, organisationId);
        return command.list(em, organisationId);
      };
    },
  };
}
