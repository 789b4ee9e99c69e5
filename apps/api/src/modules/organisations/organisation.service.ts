import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../core/errors';
import { iso, isoOrNull } from '../../core/iso-time';
import { Organisation, type Plan } from './organisation.entity';
import { PlanChange } from './plan-change.entity';

export interface OrganisationView {
  id: string;
  name: string;
  plan: Plan;
  plan_changed_at: string | null;
  created_at: string;
  updated_at: string;
}

export const toOrganisationView = (org: Organisation): OrganisationView => ({
  id: org.id,
  name: org.name,
  plan: org.plan,
  plan_changed_at: isoOrNull(org.planChangedAt),
  created_at: iso(org.createdAt),
  updated_at: iso(org.updatedAt),
});

export async function createOrganisation(
  em: EntityManager,
  input: { name: string; plan?: Plan },
): Promise<Organisation> {
  const org = em.create(Organisation, {
    name: input.name,
    plan: input.plan ?? 'free',
    planChangedAt: null,
  });
  await em.flush();
  return org;
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
