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
    /**
     * Set on a test environment: the live organisation it is the twin of (its plan is the one that
     * counts). Null on a live organisation.
     */
    liveOrganisationId: p.text().nullable().unique('organisations_live_organisation_id_unique'),
    /** When a test environment was given its sample data (null: not yet, or a live one). */
    testDataSeededAt: p.datetime().nullable(),
    /** Until when a test environment's sample data is being made or remade (a lease), or null. */
    testDataBusyUntil: p.datetime().nullable(),
  },
});
export class Organisation extends OrganisationSchema.class {}
OrganisationSchema.setClass(Organisation);
