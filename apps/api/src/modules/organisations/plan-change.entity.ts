import { defineEntity, p } from '@mikro-orm/core';
import { CreatedEntity, primaryId } from '../../db/base.entity';
import { PLANS } from './organisation.entity';

/** One upgrade or downgrade, kept for the organisation's record (billing reads it). */
export const PlanChangeSchema = defineEntity({
  name: 'PlanChange',
  tableName: 'plan_changes',
  extends: CreatedEntity,
  indexes: [
    { name: 'plan_changes_organisation_id_index', properties: ['organisationId', 'createdAt'] },
  ],
  properties: {
    id: primaryId('planChange'),
    organisationId: p.text(),
    fromPlan: p.enum(PLANS),
    toPlan: p.enum(PLANS),
    /** Null when an operator changed it (CLI). */
    changedByUserId: p.text().nullable(),
  },
});
export class PlanChange extends PlanChangeSchema.class {}
PlanChangeSchema.setClass(PlanChange);
