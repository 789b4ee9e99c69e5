import type { Response } from 'express';
import type { TenantContext } from '../../core/context';
import type { Page } from '../../db/context';
import { tenantOf } from '../locals';

/** How a resource is read: its list with filters, one object by id, and how it is rendered. */
export interface ReadableResource<Row, Resource, Filters> {
  list(ctx: TenantContext, filters: Filters): Promise<Page<Row>>;
  get(ctx: TenantContext, id: string): Promise<Row>;
  render(row: Row): Resource;
}

/**
 * The `list` and `get` handlers every resource's router has: the tenant's page of rows, or one
 * row, rendered as the contract's resource.
 */
export function readHandlers<Row, Resource, Filters>(
  resource: ReadableResource<Row, Resource, Filters>,
) {
  return {
    list: async ({ query, res }: { query: Filters; res: Response }) => {
      const page = await resource.list(tenantOf(res), query);
      return {
        status: 200 as const,
        body: { ...page, data: page.data.map((row) => resource.render(row)) },
      };
    },
    get: async ({ params, res }: { params: { id: string }; res: Response }) => ({
      status: 200 as const,
      body: { data: resource.render(await resource.get(tenantOf(res), params.id)) },
    }),
  };
}
