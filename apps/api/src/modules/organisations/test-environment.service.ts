import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantContext } from '../../core/context';
import { unprocessable } from '../../core/errors';
import { transaction } from '../../db/driver';
import { listKeys } from '../api-keys/api-key.service';
import { deleteAllAttendees } from '../attendees/attendee.service';
import { deleteAllChanges } from '../changes/change.service';
import { deleteAllCheckins } from '../checkins/checkin.service';
import { seedDemoData, type SeedCounts } from '../demo/demo.service';
import { deleteAllEvents } from '../events/event.service';
import { forgetAnswers } from '../idempotency/idempotency.service';
import { deleteAllOrders } from '../orders/order.service';
import { deleteAllPayouts } from '../payouts/payout.service';
import { deleteAllTickets } from '../tickets/ticket.service';
import { deleteAllTiers } from '../tiers/tier.service';
import { deleteAllWebhookMessages } from '../webhooks/webhook-message.service';
import { environmentOf, makeTwin } from './organisation.service';
import { claimSeeding, findTwin, markSeeded, unclaimSeeding } from './organisation.repository';

/** The events of a test environment's sample data: enough to try every call, quick to write. */
export const TEST_SAMPLE_EVENTS = 3;

/**
 * The id of a live organisation's test environment (its twin organisation row), made if it has
 * none, and given its sample data at its first use. Concurrent callers get the same twin, and one of
 * them seeds it: another may return while that seeding is still under way. A 404 for an unknown
 * organisation; a 422 for a test environment.
 */
export async function testOrganisationOf(
  em: EntityManager,
  liveOrganisationId: string,
): Promise<string> {
  const twinId = await twinOrRefuse(em, liveOrganisationId);
  if (await claimSeeding(em, twinId, new Date())) await seed(em, twinId);
  return twinId;
}

/** Sample data for a twin whose seeding the caller has claimed; unclaimed again if it fails. */
async function seed(em: EntityManager, twinId: string): Promise<SeedCounts> {
  try {
    return await seedDemoData(em, twinId, { events: TEST_SAMPLE_EVENTS });
  } catch (error) {
    // Seeded by the next caller instead.
    await unclaimSeeding(em, twinId);
    throw error;
  }
}

/** The live organisation of an organisation: itself if live, the one it is the twin of if not. */
export async function liveOrganisationOf(
  em: EntityManager,
  organisationId: string,
): Promise<string> {
  return (await environmentOf(em.fork(), organisationId)).liveOrganisationId;
}

/**
 * Empties a live organisation's test environment and gives it fresh sample data: every event, tier,
 * order, ticket, attendee, check-in and payout, every change record, every stored idempotent answer
 * of its keys and every webhook message (with its attempts) go, in one transaction; its API keys
 * and webhook endpoints stay. The counts of the new sample data. A 422 for a test environment.
 */
export async function resetTestEnvironment(
  em: EntityManager,
  liveOrganisationId: string,
): Promise<SeedCounts> {
  const twinId = await twinOrRefuse(em, liveOrganisationId);
  await transaction(em, async (tx) => {
    const ctx: TenantContext = { em: tx, organisationId: twinId, livemode: false };
    // Rows before the rows they refer to: a tier's reference to its event is checked at once.
    await deleteAllCheckins(ctx);
    await deleteAllAttendees(ctx);
    await deleteAllTickets(ctx);
    await deleteAllOrders(ctx);
    await deleteAllPayouts(ctx);
    await deleteAllTiers(ctx);
    await deleteAllEvents(ctx);
    await deleteAllChanges(ctx);
    await deleteAllWebhookMessages(ctx);
    const keys = await listKeys(tx, twinId);
    await forgetAnswers(
      tx,
      keys.map((key) => key.id),
    );
    await markSeeded(tx, twinId, new Date());
  });
  return seed(em, twinId);
}

async function twinOrRefuse(em: EntityManager, liveOrganisationId: string): Promise<string> {
  const existing = await findTwin(em, liveOrganisationId);
  if (existing) return existing.id;
  const { livemode } = await environmentOf(em.fork(), liveOrganisationId);
  if (!livemode) {
    throw unprocessable(
      'this organisation is a test environment; give the id of its live organisation',
      'not_live_organisation',
    );
  }
  return makeTwin(em, liveOrganisationId);
}
