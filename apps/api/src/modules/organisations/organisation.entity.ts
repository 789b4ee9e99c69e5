import { defineEntity, p } from '@mikro-orm/core';

export const PLANS = ['free', 'pro'] as const;
export type Plan = (typeof PLANS)[number];

export const OrganisationSchema = defineEntity({
  name: 'Organisation',
  tableName: 'organisations',
  properties: {
    id: p.string().primary(),
    name: p.text(),
    plan: p.text().$type<Plan>(),
    planChangedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export class Organisation extends OrganisationSchema.class {}
OrganisationSchema.setClass(Organisation);
