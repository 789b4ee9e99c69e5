import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantContext } from '../../core/context';
import { isSealed, SecretBoxError } from '../../core/secret-box';
import { transaction } from '../../db/driver';
import { keptKeyIds, secretBox, type ResealScope } from '../../db/secret-keys';
import { resealStoredAnswers } from '../idempotency/idempotency.service';
import { openSecret } from './signing';
import { getEndpoint, type EndpointRow } from './webhook-endpoint.service';
import {
  resealEndpointSecrets,
  secretsToReseal,
  type StoredSecrets,
} from './webhook-endpoint.repository';

/** The endpoint with its current secret in plain text (the dashboard shows it on request). */
export async function revealSecret(ctx: TenantContext, id: string): Promise<EndpointRow> {
  const row = await getEndpoint(ctx, id);
  return { ...row, secret: openSecret(row.secret, secretBox(ctx.em)) };
}

/** Endpoints re-encrypted per transaction. */
const RESEAL_BATCH = 200;

/** What a re-encryption did, by table. */
export interface ResealReport {
  /** The key everything re-encrypted is now sealed under. */
  key: string;
  endpoints: { resealed: number; unreadable: string[] };
  idempotency_answers: { resealed: number; unreadable: number };
}

/**
 * Seals again under the current key every stored secret of `scope` (db/secret-keys.ts): the
 * endpoints' secrets, and the stored answers of endpoint creations. Endpoints whose secret cannot
 * be opened (sealed under a key no longer configured) are listed, and left as they are.
 *
 * Answers stored in plain text are looked for (a scan of the stored answers) by `all`, and by
 * `legacy` only when it found an endpoint secret in plain text: answers holding one were written
 * by a server that wrote its endpoints' secrets in plain text too.
 */
export async function resealStoredSecrets(
  em: EntityManager,
  scope: ResealScope,
): Promise<ResealReport> {
  const box = secretBox(em);
  const keep = keptKeyIds(box, scope);
  const endpoints = { resealed: 0, unreadable: [] as string[] };
  // An object: TypeScript does not see the transaction's callback assign a local.
  const seen = { plain: false };
  let after = '';
  for (;;) {
    const batch = await transaction(em, async (tx) => {
      const rows = await secretsToReseal(tx, { keep, after, limit: RESEAL_BATCH });
      const sealed: StoredSecrets[] = [];
      for (const row of rows) {
        if (!isSealed(row.secret)) seen.plain = true;
        try {
          const reseal = (value: string) => box.seal(openSecret(value, box));
          sealed.push({
            id: row.id,
            secret: reseal(row.secret),
            previous_secret: row.previous_secret === null ? null : reseal(row.previous_secret),
          });
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
          endpoints.unreadable.push(row.id);
        }
      }
      await resealEndpointSecrets(tx, sealed);
      endpoints.resealed += sealed.length;
      return rows;
    });
    const last = batch.at(-1);
    if (!last || batch.length < RESEAL_BATCH) break;
    after = last.id;
  }
  const answers = await resealStoredAnswers(
    em,
    scope,
    scope === 'all' || seen.plain ? 'whsec_' : null,
  );
  return { key: box.currentKeyId, endpoints, idempotency_answers: answers };
}
