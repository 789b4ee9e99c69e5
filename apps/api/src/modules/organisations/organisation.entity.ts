import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const PLANS = ['free', 'pro'] as const;
export type Plan = (typeof PLANS)[number];

export const OrganisationSchema = defineEntity({
  name: 'Organisation',
  tableName: 'organisations',
  extends: BaseEntity,
  properties: {
    id: primaryId('organisation'),
    name: p.text(),
    plan: p.enum(PLANS).default('free'),
    planChangedAt: p.datetime().nullable(),
  },
});
export class Organisation extends OrganisationSchema.class {}
OrganisationSchema.setClass(Organisation);
