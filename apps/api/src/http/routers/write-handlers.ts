import type { Response } from 'express';
import type { TenantContext } from '../../core/context';
import { write } from '../write';

/** How a resource is written: created, changed by id, and rendered as the contract's resource. */
export interface WritableResource<Row, Resource, Create, Update> {
  create(ctx: TenantContext, body: Create): Promise<Row>;
  update(ctx: TenantContext, id: string, body: Update): Promise<Row>;
  /** The row as the contract's resource, in the key's mode (`livemode`). */
  render(row: Row, livemode: boolean): Resource;
}

/**
 * The `create` (201) and `update` (200) handlers of a resource the public API writes: each is
 * one write, in one transaction, answering with the resource as it was stored.
 */
export function writeHandlers<Row, Resource, Create, Update>(
  resource: WritableResource<Row, Resource, Create, Update>,
) {
  return {
    create: ({ body, res }: { body: Create; res: Response }) =>
      write(res, async (tx) => ({
        status: 201 as const,
        body: { data: resource.render(await resource.create(tx, body), tx.livemode) },
      })),
    update: ({ params, body, res }: { params: { id: string }; body: Update; res: Response }) =>
      write(res, async (tx) => ({
        status: 200 as const,
        body: { data: resource.render(await resource.update(tx, params.id, body), tx.livemode) },
      })),
  };
}
