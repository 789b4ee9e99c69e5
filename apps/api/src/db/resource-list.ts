import type { EXPORT_FILTER_SCHEMAS, ExportResource } from '@boxoffice/contract';
import type { EntityName } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import type { TenantContext } from '../core/context';
import {
  findPage,
  listOrder,
  type ListFilter,
  type ListRows,
  type Page,
  type PageRequest,
  type Sortable,
} from './pages';

/** The filters of a resource's list as the contract parses them: its query without paging. */
export type ListFilters<R extends ExportResource> = z.output<(typeof EXPORT_FILTER_SCHEMAS)[R]>;

/** The filters most lists share, as the contract names them. */
interface SharedFilters {
  event_id?: string | undefined;
  status?: readonly string[] | undefined;
  updated_since?: Date | undefined;
}

/**
 * A resource's list: the rows its filters select, in its order (`rows`: its pages and an export of
 * it read the same rows), and one page of them (`page`).
 */
export interface ResourceList<T extends Sortable, F> {
  readonly rows: (ctx: TenantContext, filters: F) => ListRows<T>;
  readonly page: (ctx: TenantContext, request: F & PageRequest) => Promise<Page<T>>;
}

/**
 * The list of `entity`: the organisation's rows, narrowed by whichever shared filters came
 * (`event_id`, `status` as a list of statuses, `updated_since`) and then by `narrow`, the list's own
 * filters. Ordered by creation, or by last change when syncing with `updated_since`, unless `order`
 * says otherwise (the last key unique).
 */
export function resourceList<
  T extends Sortable & { organisationId: string },
  F extends SharedFilters,
>(
  entity: EntityName<T>,
  narrow: (where: ListFilter<T>, filters: F) => void = () => undefined,
  order: (filters: F) => readonly (keyof T & string)[] = listOrder,
): ResourceList<T, F> {
  const rows = (ctx: TenantContext, filters: F): ListRows<T> => {
    const where: Record<string, unknown> = { organisationId: ctx.organisationId };
    if (filters.event_id) where.eventId = filters.event_id;
    if (filters.status) where.status = { $in: filters.status };
    if (filters.updated_since) where.updatedAt = { $gte: filters.updated_since };
    narrow(where as ListFilter<T>, filters);
    return { entity, where: where as ListFilter<T>, order: order(filters) };
  };
  return {
    rows,
    page: (ctx, request) => {
      const list = rows(ctx, request);
      return findPage(ctx.em, list.entity, list.where, request, list.order);
    },
  };
}
