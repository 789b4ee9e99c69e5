import type { WebhookEventType } from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { clock } from '../../db/driver';
import { deleteOrganisationRecords, insertRecords, purgeRecords } from './change.repository';

/** What a change is: the contract's list of webhook event types (`ticket.updated`, …). */
export type ChangeType = WebhookEventType;

/** One change: its type and the object as the API renders it after the change. */
export interface Change {
  type: ChangeType;
  object: { id: string };
}

/** Change records are kept this long, then purged (`purgeChanges`). */
export const CHANGE_RETENTION_DAYS = 30;

/**
 * Appends change records, in order, to the transaction of the changes themselves: they commit
 * together or not at all, stamped with the transaction's clock. Every write to a recorded resource
 * goes through here, whoever makes it (the API, the dashboard, the operator CLI, the demo data).
 */
export async function recordChanges(ctx: TenantContext, changes: readonly Change[]): Promise<void> {
  if (changes.length === 0) return;
  if (!ctx.em.isInTransaction()) {
    throw new Error('change records must be written in the transaction of their change');
  }
  await insertRecords(ctx.em, {
    organisationId: ctx.organisationId,
    records: changes,
    at: clock(ctx.em),
  });
}

/** Deletes change records past their retention; returns how many. */
export function purgeChanges(em: TenantContext['em']): Promise<number> {
  return purgeRecords(em, new Date(Date.now() - CHANGE_RETENTION_DAYS * 24 * 3600 * 1000));
}

/** Deletes every change record of the organisation's (a test environment's reset). */
export function deleteAllChanges(ctx: TenantContext): Promise<void> {
  return deleteOrganisationRecords(ctx.em, ctx.organisationId);
}
