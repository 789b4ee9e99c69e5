import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../core/errors';
import { newId } from '../../core/ids';
import { iso, isoOrNull } from '../../core/iso-time';
import { clock } from '../../db/driver';
import { Organisation, type Plan } from './organisation.entity';
import { findTwin, insertTwin } from './organisation.repository';
import { PlanChange } from './plan-change.entity';

export interface OrganisationView {
  id: string;
  name: string;
  plan: Plan;
  plan_changed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Whether the organisation row holds live data (false: it is a live one's test environment). */
export const livemode = (org: Pick<Organisation, 'liveOrganisationId'>): boolean =>
  org.liveOrganisationId === null;

export const toOrganisationView = (org: Organisation): OrganisationView => ({
  id: org.id,
  name: org.name,
  plan: org.plan,
  plan_changed_at: isoOrNull(org.planChangedAt),
  created_at: iso(org.createdAt),
  updated_at: iso(org.updatedAt),
});

/**
 * Creates a live organisation and its test environment, empty: the test environment gets its
 * sample data at its first use (`testOrganisationOf`), which keeps a sign-up one insert longer,
 * not a demo's worth of writes.
 */
export async function createOrganisation(
  em: EntityManager,
  input: { name: string; plan?: Plan },
): Promise<Organisation> {
  const org = em.create(Organisation, {
    name: input.name,
    plan: input.plan ?? 'free',
    planChangedAt: null,
    liveOrganisationId: null,
    testDataSeededAt: null,
    testDataBusyUntil: null,
  });
  await em.flush();
  await makeTwin(em, org.id);
  return org;
}

/**
 * The id of the live organisation's test environment, made (empty) if it has none; concurrent
 * callers get the same one. A 404 for an unknown organisation, and for a test environment (which
 * has no twin of its own).
 */
export async function makeTwin(em: EntityManager, liveOrganisationId: string): Promise<string> {
  const existing = await findTwin(em, liveOrganisationId);
  if (existing) return existing.id;
  const at = clock(em);
  await insertTwin(em, { id: newId('organisation', at), liveOrganisationId, at });
  const twin = await findTwin(em, liveOrganisationId);
  if (!twin) throw notFound('live organisation');
  return twin.id;
}

/** Whether the organisation holds live data, and the live organisation whose plan applies. */
export async function environmentOf(
  em: EntityManager,
  organisationId: string,
): Promise<{ livemode: boolean; liveOrganisationId: string }> {
  const org = await getOrganisation(em, organisationId);
  return { livemode: livemode(org), liveOrganisationId: org.liveOrganisationId ?? org.id };
}

export async function getOrganisation(em: EntityManager, id: string): Promise<Organisation> {
  const org = await em.findOne(Organisation, { id });
  if (!org) throw notFound('organisation');
  return org;
}

/**
 * The organisation, locked (`FOR UPDATE`) until the surrounding transaction ends, for writes that
 * must see its rows unchanged meanwhile (counting its keys against a limit).
 */
export async function lockOrganisation(em: EntityManager, id: string): Promise<Organisation> {
  const org = await em.findOne(Organisation, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!org) throw notFound('organisation');
  return org;
}

/**
 * Changes the plan and records the change. It takes effect on the next API request: the plan is
 * read on every authentication. `changedByUserId` is null for operator changes.
 */
export async function setPlan(
  em: EntityManager,
  id: string,
  plan: Plan,
  changedByUserId: string | null = null,
): Promise<Organisation> {
  const org = await getOrganisation(em, id);
  if (org.plan !== plan) {
    const change = em.create(PlanChange, {
      organisationId: org.id,
      fromPlan: org.plan,
      toPlan: plan,
      changedByUserId,
    });
    org.plan = plan;
    org.planChangedAt = change.createdAt;
    await em.flush();
  }
  return org;
}

/** The organisation's plan changes, newest first. */
export async function planHistory(em: EntityManager, id: string): Promise<PlanChange[]> {
  return em.find(
    PlanChange,
    { organisationId: id },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
}
