import { DEFAULT_DEMO_EVENTS, MAX_DEMO_EVENTS, seedDemoData } from '../modules/demo/demo-data';
import { getOrganisation } from '../modules/organisations/organisation.service';
import { integerFlag, parseCommandArgs, requireFlag, type Command } from './args';

const usage = 'seed --org <org_id> [--events N]';

export const seedCommands: Command[] = [
  {
    path: ['seed'],
    usage,
    summary: `Add demo events, orders, check-ins and payouts to an organisation (${DEFAULT_DEMO_EVENTS} events unless --events is given)`,
    parse(argv) {
      const parsed = parseCommandArgs(argv, { usage, flags: ['org', 'events'] });
      const organisationId = requireFlag(parsed, 'org', usage);
      const events = integerFlag(
        parsed.flags.events,
        'events',
        { min: 1, max: MAX_DEMO_EVENTS },
        usage,
      );
      return async (orm) => {
        const org = await getOrganisation(orm.em.fork(), organisationId);
        return seedDemoData(orm.em.fork(), org.id, { events });
      };
    },
  },
];
