import type { TenantContext } from '../core/context';
import type { EntityManager } from '../db/orm';
import { environmentOf } from '../modules/organisations/organisation.service';
import { testOrganisationOf } from '../modules/organisations/test-environment.service';
import { defineCommand, requireFlag, type Command } from './args';

/**
 * The organisation a command acts for: the one named, or with `--test` its test environment (made,
 * with its sample data, if it has none yet). An unknown organisation is an error.
 */
export async function tenantFor(
  em: EntityManager,
  organisationId: string,
  test: boolean,
): Promise<Omit<TenantContext, 'em'>> {
  if (test)
    return { organisationId: await testOrganisationOf(em, organisationId), livemode: false };
  const { livemode } = await environmentOf(em.fork(), organisationId);
  return { organisationId, livemode };
}

/**
 * `<noun> list --org <org_id> [--test]`: what one organisation (or its test environment) has. An
 * unknown organisation is an error, not an empty list.
 */
export function organisationListCommand(command: {
  noun: string;
  summary: string;
  list: (ctx: TenantContext) => Promise<unknown[]>;
}): Command {
  return defineCommand({
    usage: `${command.noun} list --org <org_id> [--test]`,
    summary: `${command.summary}; --test: its test environment's`,
    flags: ['org'],
    switches: ['test'],
    prepare(parsed) {
      const organisationId = requireFlag(parsed, 'org');
      return async (orm) => {
        const em = orm.em.fork();
        return command.list({ em, ...(await tenantFor(em, organisationId, parsed.switches.test)) });
      };
    },
  });
}
