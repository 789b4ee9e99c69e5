import { defineEntity, p } from '@mikro-orm/core';
import { CreatedEntity, primaryId } from '../../db/base.entity';
import type { Plan } from './organisation.entity';

/** One upgrade or downgrade, kept for the organisation's record (billing reads it). */
export const PlanChangeSchema = defineEntity({
  name: 'PlanChange',
  tableName: 'plan_changes',
  extends: CreatedEntity,
  properties: {
    id: primaryId('planChange'),
    organisationId: p.text(),
    fromPlan: p.text().$type<Plan>(),
    toPlan: p.text().$type<Plan>(),
    /** Null when an operator changed it (CLI). */
    changedByUserId: p.text().nullable(),
  },
});
export class PlanChange extends PlanChangeSchema.class {}
PlanChangeSchema.setClass(PlanChange);
