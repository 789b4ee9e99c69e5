import type { EntityManager } from '../db/orm';
import { getOrganisation } from '../modules/organisations/organisation.service';
import { defineCommand, requireFlag, type Command } from './args';

/**
 * `<noun> list --org <org_id>`: what one organisation has. An unknown organisation is an error,
 * not an empty list.
 */
export function organisationListCommand(command: {
  noun: string;
  summary: string;
  list: (em: EntityManager, organisationId: string) => Promise<unknown[]>;
}): Command {
  return defineCommand({
    usage: `${command.noun} list --org <org_id>`,
    summary: command.summary,
    flags: ['org'],
    prepare(parsed) {
      const organisationId = requireFlag(parsed, 'org');
      return async (orm) => {
        const em = orm.em.fork();
        await getOrganisation(em, organisationId);
        return command.list(em, organisationId);
      };
    },
  });
}
