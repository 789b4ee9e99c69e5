import { setTimeout } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantContext } from '../../core/context';
import { conflict, unprocessable } from '../../core/errors';
import { transaction } from '../../db/driver';
import { deleteRevokedKeys, listKeys } from '../api-keys/api-key.service';
import { deleteAllAttendees } from '../attendees/attendee.service';
import { deleteAllChanges } from '../changes/change.service';
import { deleteAllCheckins } from '../checkins/checkin.service';
import { seedDemoData, type SeedCounts } from '../demo/demo.service';
import { deleteAllEvents } from '../events/event.service';
import { deleteAllExports } from '../exports/export.service';
import { forgetAnswers } from '../idempotency/idempotency.service';
import { deleteAllOrders } from '../orders/order.service';
import { deleteAllPayouts } from '../payouts/payout.service';
import { deleteAllTickets } from '../tickets/ticket.service';
import { deleteAllTiers } from '../tiers/tier.service';
import { deleteAllWebhookMessages } from '../webhooks/webhook-message.service';
import { environmentOf, makeTwin } from './organisation.service';
import { endLease, findTwin, takeLease, type TwinRow } from './organisation.repository';

/** The events of a test environment's sample data: enough to try every call, quick to write. */
export const TEST_SAMPLE_EVENTS = 3;

/** How long making sample data may hold a test environment (it takes a few seconds). */
const SAMPLE_DATA_LEASE_MS = 120_000;
/** A caller waiting for another's first sample data looks again this often, this long at most. */
const WAIT_STEP_MS = 200;
const WAIT_MAX_MS = 30_000;

/**
 * The id of a live organisation's test environment (its twin organisation row), made if it has
 * none, and given its sample data at its first use. Concurrent callers get the same twin; one of
 * them makes the sample data while the others wait for it (up to WAIT_MAX_MS). A 404 for an
 * unknown organisation; a 422 for a test environment.
 */
export async function testOrganisationOf(
  em: EntityManager,
  liveOrganisationId: string,
): Promise<string> {
  let twin = await twinOrRefuse(em, liveOrganisationId);
  const deadline = Date.now() + WAIT_MAX_MS;
  while (!twin.test_data_seeded_at) {
    if (await takeLease(em, { ...lease(twin.id), unseeded: true })) {
      await makeSampleData(em, twin.id);
      break;
    }
    if (Date.now() > deadline) break;
    await setTimeout(WAIT_STEP_MS);
    twin = (await findTwin(em, liveOrganisationId)) ?? twin;
  }
  return twin.id;
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
 * of its keys, its revoked keys and every webhook message (with its attempts) go, in one
 * transaction; its active API keys and its webhook endpoints stay. The counts of the new sample
 * data. A 409 `test_data_busy` while its sample data is being made (a first use or another reset);
 * a 422 for a test environment.
 */
export async function resetTestEnvironment(
  em: EntityManager,
  liveOrganisationId: string,
): Promise<SeedCounts> {
  const twinId = (await twinOrRefuse(em, liveOrganisationId)).id;
  if (!(await takeLease(em, { ...lease(twinId), unseeded: false }))) {
    throw conflict(
      'the test data is being made or reset right now; try again in a few seconds',
      'test_data_busy',
    );
  }
  return makeSampleData(em, twinId);
}

const lease = (twinId: string) => {
  const at = new Date();
  return { id: twinId, at, until: new Date(at.getTime() + SAMPLE_DATA_LEASE_MS) };
};

/**
 * For a twin whose lease the caller holds: empties it (see resetTestEnvironment), writes sample
 * data, and ends the lease. If that fails the twin counts as having no sample data: its next use
 * makes it again.
 */
async function makeSampleData(em: EntityManager, twinId: string): Promise<SeedCounts> {
  try {
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
      await deleteAllExports(ctx);
      const keys = await listKeys(tx, twinId);
      await forgetAnswers(
        tx,
        keys.map((key) => key.id),
      );
      await deleteRevokedKeys(tx, twinId);
    });
    const counts = await seedDemoData(em, twinId, { events: TEST_SAMPLE_EVENTS });
    await endLease(em, twinId, new Date());
    return counts;
  } catch (error) {
    await endLease(em, twinId, null).catch(() => undefined);
    throw error;
  }
}

/** The live organisation's test environment, made (empty) if it has none. */
async function twinOrRefuse(em: EntityManager, liveOrganisationId: string): Promise<TwinRow> {
  const existing = await findTwin(em, liveOrganisationId);
  if (existing) return existing;
  const { livemode } = await environmentOf(em.fork(), liveOrganisationId);
  if (!livemode) {
    throw unprocessable(
      'this organisation is a test environment; give the id of its live organisation',
      'not_live_organisation',
    );
  }
  return { id: await makeTwin(em, liveOrganisationId), test_data_seeded_at: null };
}
