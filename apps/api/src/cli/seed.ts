import { DEFAULT_DEMO_EVENTS, MAX_DEMO_EVENTS, seedDemoData } from '../modules/demo/demo.service';
import { getOrganisation } from '../modules/organisations/organisation.service';
import { defineCommand, integerFlag, requireFlag, type Command } from './args';

export const seedCommands: Command[] = [
  defineCommand({
    usage: 'seed --org <org_id> [--events N]',
    summary: `Add demo events, orders, check-ins and payouts to an organisation (${DEFAULT_DEMO_EVENTS} events unless --events is given)`,
    flags: ['org', 'events'],
    prepare(parsed) {
      const organisationId = requireFlag(parsed, 'org');
      const events = integerFlag(parsed, 'events', { min: 1, max: MAX_DEMO_EVENTS });
      return async (orm) => {
        const org = await getOrganisation(orm.em.fork(), organisationId);
        return seedDemoData(orm.em.fork(), org.id, { events });
      };
    },
  }),
];
