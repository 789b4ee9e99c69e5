import { PLANS, type Plan } from '../modules/organisations/organisation.entity';
import {
  createOrganisation,
  setPlan,
  toOrganisationView,
} from '../modules/organisations/organisation.service';
import { parseCommandArgs, requireFlag, UsageError, type Command } from './args';

const MAX_NAME_LENGTH = 200;

function parsePlan(value: string, usage: string): Plan {
  const plan = value.trim();
  if (!(PLANS as readonly string[]).includes(plan)) {
    throw new UsageError(`plan must be one of: ${PLANS.join(', ')}`, usage);
  }
  return plan as Plan;
}

const createUsage = 'org create --name <name> [--plan free|pro]';
const setPlanUsage = 'org set-plan <org_id> <free|pro>';

export const orgCommands: Command[] = [
  {
    path: ['org', 'create'],
    usage: createUsage,
    summary: 'Create an organisation (on the free plan unless --plan is given)',
    parse(argv) {
      const parsed = parseCommandArgs(argv, { usage: createUsage, flags: ['name', 'plan'] });
      const name = requireFlag(parsed, 'name', createUsage);
      if (name.length > MAX_NAME_LENGTH) {
        throw new UsageError(`--name must be at most ${MAX_NAME_LENGTH} characters`, createUsage);
      }
      const plan = parsePlan(parsed.flags.plan ?? 'free', createUsage);
      return async (orm) =>
        toOrganisationView(await createOrganisation(orm.em.fork(), { name, plan }));
    },
  },
  {
    path: ['org', 'set-plan'],
    usage: setPlanUsage,
    summary: "Change an organisation's plan; API access follows on the next request",
    parse(argv) {
      const { args } = parseCommandArgs(argv, {
        usage: setPlanUsage,
        positionals: ['org_id', 'plan'],
      });
      const plan = parsePlan(args.plan, setPlanUsage);
      return async (orm) => toOrganisationView(await setPlan(orm.em.fork(), args.org_id, plan));
    },
  },
];
