import type { Response } from 'express';
import type { TenantContext } from '../core/context';
import { inTransaction } from '../db/driver';
import { runOnce } from '../modules/idempotency/idempotency.service';
import { tenantOf } from './locals';

type WriteContext = TenantContext & { apiKeyId: string };

/**
 * A write of the public API: `operation` runs in one transaction, in which the services also
 * record the changes they make. With an `Idempotency-Key`, the answer the operation returns is
 * stored in that same transaction, and a repeated request gets it back (`Idempotent-Replayed`)
 * without the operation running again. `holdsSecret`: its answer is stored sealed.
 */
export async function write<A extends { status: number; body: unknown }>(
  res: Response,
  operation: (tx: WriteContext) => Promise<A>,
  options: { holdsSecret?: boolean } = {},
): Promise<A> {
  const tenant = tenantOf(res);
  const idempotency = res.locals.idempotency;
  if (!idempotency) return inTransaction(tenant, operation);
  const { answer, replayed } = await runOnce(
    tenant.em,
    { apiKeyId: tenant.apiKeyId, ...idempotency, sealed: options.holdsSecret },
    (em) => operation({ ...tenant, em }),
  );
  if (replayed) res.set('Idempotent-Replayed', 'true');
  // A replay is an answer this route gave before: one of its own responses.
  return answer as A;
}
