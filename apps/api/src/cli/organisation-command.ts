import type { TenantContext } from '../core/context';
import type { EntityManager } from '../db/orm';
import { environmentOf } from '../modules/organisations/organisation.service';
import { testOrganisationOf } from '../modules/organisations/test-environment.service';
import { defineCommand, requireFlag, type Command, type ParsedArgs } from './args';

/**
 * The organisation a command acts for: the one named, or with `--test` its test environment (made,
 * with its sample data, if it has none yet). An unknown organisation is an error.
 */
async function tenantFor(
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
 * A command that acts for the organisation `--org` names, or with `--test` for its test
 * environment: `prepare` checks the other arguments and returns the work to do in that
 * organisation's context.
 */
export function organisationCommand<const F extends string = never>(spec: {
  usage: string;
  summary: string;
  flags?: readonly F[];
  /** Prints its result (a list) as JSON lines, one item a line. */
  lines?: boolean;
  prepare(parsed: ParsedArgs<F | 'org', never, 'test'>): (ctx: TenantContext) => Promise<unknown>;
}): Command {
  return defineCommand({
    usage: spec.usage,
    summary: spec.summary,
    lines: spec.lines,
    flags: ['org', ...(spec.flags ?? [])],
    switches: ['test'],
    prepare(parsed) {
      const organisationId = requireFlag(parsed, 'org');
      const work = spec.prepare(parsed);
      return async (orm) => {
        const em = orm.em.fork();
        return work({ em, ...(await tenantFor(em, organisationId, parsed.switches.test)) });
      };
    },
  });
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
  return organisationCommand({
    usage: `${command.noun} list --org <org_id> [--test]`,
    summary: `${command.summary}; --test: its test environment's`,
    prepare: () => command.list,
  });
}
