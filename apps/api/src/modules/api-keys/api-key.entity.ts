import { defineEntity, p } from '@mikro-orm/core';
import type { Scope } from '@boxoffice/contract';
import { BaseEntity, primaryId } from '../../db/base.entity';

export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  extends: BaseEntity,
  properties: {
    id: primaryId('apiKey'),
    organisationId: p.text().index('api_keys_organisation_id_index'),
    name: p.text(),
    /** The key's prefix (`bxo_live_` or `bxo_test_`), `…` and its last four characters, for lists. */
    hint: p.text(),
    /** SHA-256 (hex) of the whole key; the key itself is never stored. */
    keyHash: p.text().unique('api_keys_key_hash_unique'),
    scopes: p.array().$type<Scope[]>(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export class ApiKey extends ApiKeySchema.class {}
ApiKeySchema.setClass(ApiKey);
