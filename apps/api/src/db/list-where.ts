import type { TenantContext } from '../core/context';
import type { ListFilter } from './pages';

/** The filters most lists share, as the contract names them. */
export interface SharedFilters {
  event_id?: string | undefined;
  status?: readonly string[] | undefined;
  updated_since?: Date | undefined;
}

/**
 * The `where` of a list: the organisation's rows, narrowed by whichever shared filters came
 * (`event_id`, `status` as a list of statuses, `updated_since`). A list adds its own filters to it.
 */
export function listWhere<T extends { organisationId: string }>(
  ctx: TenantContext,
  filters: SharedFilters,
): ListFilter<T> {
  const where: Record<string, unknown> = { organisationId: ctx.organisationId };
  if (filters.event_id) where.eventId = filters.event_id;
  if (filters.status) where.status = { $in: filters.status };
  if (filters.updated_since) where.updatedAt = { $gte: filters.updated_since };
  return where as ListFilter<T>;
}
