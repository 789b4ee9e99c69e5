import { PLANS, type Plan } from '../modules/organisations/organisation.entity';
import {
  createOrganisation,
  setPlan,
  toOrganisationView,
} from '../modules/organisations/organisation.service';
import { defineCommand, requireFlag, UsageError, type Command } from './args';

const MAX_NAME_LENGTH = 200;

function parsePlan(value: string, usage: string): Plan {
  const plan = value.trim();
  if (!(PLANS as readonly string[]).includes(plan)) {
    throw new UsageError(`plan must be one of: ${PLANS.join(', ')}`, usage);
  }
  return plan as Plan;
}

export const orgCommands: Command[] = [
  defineCommand({
    usage: 'org create --name <name> [--plan free|pro]',
    summary: 'Create an organisation (on the free plan unless --plan is given)',
    flags: ['name', 'plan'],
    prepare(parsed) {
      const name = requireFlag(parsed, 'name');
      if (name.length > MAX_NAME_LENGTH) {
        throw new UsageError(`--name must be at most ${MAX_NAME_LENGTH} characters`, parsed.usage);
      }
      const plan = parsePlan(parsed.flags.plan ?? 'free', parsed.usage);
      return async (orm) =>
        toOrganisationView(await createOrganisation(orm.em.fork(), { name, plan }));
    },
  }),
  defineCommand({
    usage: 'org set-plan <org_id> <free|pro>',
    summary: "Change an organisation's plan; API access follows on the next request",
    positionals: ['org_id', 'plan'],
    prepare({ args, usage }) {
      const plan = parsePlan(args.plan, usage);
      return async (orm) => toOrganisationView(await setPlan(orm.em.fork(), args.org_id, plan));
    },
  }),
];
