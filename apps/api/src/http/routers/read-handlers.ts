import { SYNC_OVERLAP_SECONDS } from '@boxoffice/contract';
import type { KeyObject } from 'node:crypto';
import type { Response } from 'express';
import type { TenantContext } from '../../core/context';
import { badRequest } from '../../core/errors';
import type { Page, PageRequest } from '../../db/pages';
import { serverSecret } from '../../db/server-secret';
import { filterDigest, openCursor, sealCursor, type CursorScope, type Walk } from '../cursor';
import { tenantOf } from '../locals';

/** How a resource is read: its list with filters, one object by id, and how it is rendered. */
export interface ReadableResource<Row, Resource, Filters extends PageRequest> {
  /** The list's name, which its cursors are bound to. */
  name: string;
  /** Plain statements only (db/pages.ts): `ctx.em` may be the ORM's own, not a request's fork. */
  list(ctx: TenantContext, filters: Filters): Promise<Page<Row>>;
  get(ctx: TenantContext, id: string): Promise<Row>;
  /** The row as the contract's resource, in the key's mode (`livemode`). */
  render(row: Row, livemode: boolean): Resource;
}

/** A list request as the contract parses it: the filters, and `page` or `cursor`, and `limit`. */
type ListQuery<Filters extends PageRequest> = Omit<Filters, keyof PageRequest> & {
  limit: number;
  page?: number | undefined;
  cursor?: string | undefined;
};

/** Where a list request starts: a cursor's walk, or a new walk at `page` (1 by default). */
function startOf(
  secret: KeyObject,
  scope: CursorScope,
  query: { page?: number | undefined; cursor?: string | undefined },
): Walk {
  if (query.cursor === undefined) {
    return { after: undefined, page: query.page ?? 1, total: undefined, startedAt: Date.now() };
  }
  if (query.page !== undefined) {
    throw badRequest(
      'cursor and page cannot be combined: the cursor already says where the next page starts',
      'invalid_cursor',
    );
  }
  return openCursor(secret, scope, query.cursor);
}

/**
 * The next page as a `Link` header (RFC 8288): this request's path and filters with the next
 * cursor. It arrives with the status line, so a client walking the list can ask for the next page
 * before it has read this one's body.
 */
function nextLink(requestUrl: string, cursor: string): string {
  const url = new URL(requestUrl, 'http://origin');
  url.searchParams.delete('page');
  url.searchParams.set('cursor', cursor);
  return `<${url.pathname}${url.search}>; rel="next"`;
}

/**
 * The `list` and `get` handlers every resource's router has: the tenant's page of rows, or one
 * row, rendered as the contract's resource. A list page carries the cursor of the next one, bound
 * to the same filters, and the checkpoint a later sync starts from.
 */
export function readHandlers<Row, Resource, Filters extends PageRequest>(
  resource: ReadableResource<Row, Resource, Filters>,
) {
  return {
    list: async ({
      query,
      req,
      res,
    }: {
      query: ListQuery<Filters>;
      req: { originalUrl: string };
      res: Response;
    }) => {
      const ctx = tenantOf(res);
      const { page, limit, cursor, ...filters } = query;
      const scope: CursorScope = {
        list: resource.name,
        organisationId: ctx.organisationId,
        filters: filterDigest(filters),
      };
      const secret = await serverSecret(ctx.em, 'list_cursor');
      const walk = startOf(secret, scope, { page, cursor });
      const found = await resource.list(ctx, {
        ...filters,
        limit,
        page: walk.page,
        after: walk.after,
        count: walk.total === undefined,
      } as Filters);
      const total = walk.total ?? found.total ?? 0;
      const next = found.nextAfter && {
        ...walk,
        after: found.nextAfter,
        page: walk.page + 1,
        total,
      };
      const nextCursor = next ? sealCursor(secret, scope, next) : null;
      if (nextCursor !== null) res.setHeader('Link', nextLink(req.originalUrl, nextCursor));
      return {
        status: 200 as const,
        body: {
          data: found.data.map((row) => resource.render(row, ctx.livemode)),
          total,
          page: walk.page,
          limit,
          next_cursor: nextCursor,
          sync_checkpoint: new Date(walk.startedAt - SYNC_OVERLAP_SECONDS * 1000).toISOString(),
        },
      };
    },
    get: async ({ params, res }: { params: { id: string }; res: Response }) => {
      const ctx = tenantOf(res);
      return {
        status: 200 as const,
        body: { data: resource.render(await resource.get(ctx, params.id), ctx.livemode) },
      };
    },
  };
}
