import { hash, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SCOPES, type Scope } from '@boxoffice/contract';
import { AppError, badRequest, notFound } from '../../core/errors';
import { randomBase62 } from '../../core/ids';
import { iso, isoOrNull } from '../../core/iso-time';
import { transaction } from '../../db/driver';
import type { Plan } from '../organisations/organisation.entity';
import { livemode, lockOrganisation } from '../organisations/organisation.service';
import { ApiKey } from './api-key.entity';
import { findKeyByHash, touchKey } from './api-key.repository';

/** A live key's prefix: it sees and changes live data. */
export const KEY_PREFIX = 'bxo_live_';
/** A test key's prefix: it sees and changes its organisation's test environment only. */
export const TEST_KEY_PREFIX = 'bxo_test_';
/** The prefix of a key for an organisation in this mode. */
export const keyPrefixOf = (livemode: boolean): string => (livemode ? KEY_PREFIX : TEST_KEY_PREFIX);
/** 40 base62 characters: about 238 bits, far past the 32-character minimum. */
const KEY_RANDOM_LENGTH = 40;
const KEY_PATTERN = /^bxo_(?:live|test)_[0-9A-Za-z]{32,128}$/;
/** Whether `raw` has the shape of a key this server generates (only those are looked up). */
export const isKeyFormat = (raw: string): boolean => KEY_PATTERN.test(raw);

/**
 * The hint of a raw key, as the dashboard shows it: its own prefix (`bxo_live_` or `bxo_test_`)
 * and last four characters. A key of neither kind is hinted as a live one.
 */
export const hintOf = (raw: string): string =>
  `${raw.startsWith(TEST_KEY_PREFIX) ? TEST_KEY_PREFIX : KEY_PREFIX}…${raw.slice(-4)}`;

/** Active (unrevoked) keys an organisation may have: enough for every app, not a key store. */
export const MAX_ACTIVE_KEYS = 50;

export interface ApiKeyView {
  id: string;
  organisation_id: string;
  name: string;
  hint: string;
  scopes: Scope[];
  status: 'active' | 'revoked';
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export const toApiKeyView = (key: ApiKey): ApiKeyView => ({
  id: key.id,
  organisation_id: key.organisationId,
  name: key.name,
  hint: key.hint,
  scopes: key.scopes,
  status: key.revokedAt ? 'revoked' : 'active',
  created_at: iso(key.createdAt),
  last_used_at: isoOrNull(key.lastUsedAt),
  revoked_at: isoOrNull(key.revokedAt),
});

export const hashKey = (raw: string): string => hash('sha256', raw, 'hex');

export function parseScopes(input: readonly string[]): Scope[] {
  const scopes = [...new Set(input.map((scope) => scope.trim()).filter(Boolean))];
  const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (scopes.length === 0 || unknown.length > 0) {
    throw badRequest(`scopes must be one or more of: ${SCOPES.join(', ')}`);
  }
  return SCOPES.filter((scope) => scopes.includes(scope));
}

/**
 * Creates a key; the raw key is returned only here and never stored. An organisation has at most
 * `MAX_ACTIVE_KEYS` active keys: its row is locked while the keys are counted and the new one is
 * written, so concurrent creations queue and cannot pass the limit together.
 */
export async function generateKey(
  em: EntityManager,
  input: { organisationId: string; name?: string; scopes: readonly string[] },
): Promise<{ apiKey: ApiKey; key: string }> {
  const scopes = parseScopes(input.scopes);
  const name = (input.name ?? '').trim() || 'API key';
  if (name.length > 100) throw badRequest('name must be at most 100 characters');
  return transaction(em, async (tx) => {
    const org = await lockOrganisation(tx, input.organisationId);
    const active = await tx.count(ApiKey, { organisationId: org.id, revokedAt: null });
    if (active >= MAX_ACTIVE_KEYS) {
      throw new AppError(
        409,
        'key_limit_reached',
        `This organisation already has ${MAX_ACTIVE_KEYS} active API keys, the most it can have. Revoke a key it no longer uses, then generate a new one.`,
      );
    }
    // A test environment's keys are test keys.
    const raw = `${keyPrefixOf(livemode(org))}${randomBase62(KEY_RANDOM_LENGTH)}`;
    const apiKey = tx.create(ApiKey, {
      organisationId: org.id,
      name,
      hint: hintOf(raw),
      keyHash: hashKey(raw),
      scopes,
      lastUsedAt: null,
      revokedAt: null,
    });
    return { apiKey, key: raw };
  });
}

export async function listKeys(em: EntityManager, organisationId: string): Promise<ApiKey[]> {
  return em.find(ApiKey, { organisationId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
}

/** Deletes an organisation's revoked keys (a test environment's reset). */
export async function deleteRevokedKeys(em: EntityManager, organisationId: string): Promise<void> {
  await em.nativeDelete(ApiKey, { organisationId, revokedAt: { $ne: null } });
}

/**
 * Revokes a key. With `organisationId`, a key of another organisation is not found (the dashboard's
 * view); without it (the operator CLI), any key can be revoked. Revoking twice is harmless.
 */
export async function revokeKey(
  em: EntityManager,
  keyId: string,
  organisationId?: string,
): Promise<ApiKey> {
  const key = await em.findOne(
    ApiKey,
    organisationId ? { id: keyId, organisationId } : { id: keyId },
  );
  if (!key) throw notFound('API key');
  if (!key.revokedAt) {
    key.revokedAt = new Date();
    await em.flush();
  }
  return key;
}

export interface AuthenticatedKey {
  apiKeyId: string;
  organisationId: string;
  /** False for a test key (its organisation is a test environment). */
  livemode: boolean;
  /** The live organisation's plan, which a test environment's keys share. */
  plan: Plan;
  scopes: Scope[];
}

/** What a raw bearer token is: a live key, a revoked one (and since when), or nothing of ours. */
export type KeyIdentity =
  | { status: 'active'; key: AuthenticatedKey }
  | { status: 'revoked'; revokedAt: Date }
  | { status: 'unknown' };

/**
 * Finds the key for a raw bearer token, with its mode and its (live) organisation's plan, in one
 * indexed query.
 * Nothing is cached, so a revocation or plan change applies to the very next request on every
 * instance. A token not in the key format is `unknown` without a query.
 */
export async function authenticateKey(em: EntityManager, raw: string): Promise<KeyIdentity> {
  if (!isKeyFormat(raw)) return { status: 'unknown' };
  const keyHash = hashKey(raw);
  const row = await findKeyByHash(em, keyHash);
  if (!row) return { status: 'unknown' };
  // The index lookup already matched; the constant-time comparison keeps the final check free of
  // timing differences should the lookup ever become a prefix or range scan.
  if (!timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(keyHash, 'hex'))) {
    return { status: 'unknown' };
  }
  if (row.revoked_at) return { status: 'revoked', revokedAt: row.revoked_at };
  if (row.stale) void touchKey(em, row.id, new Date()).catch(() => undefined);
  return {
    status: 'active',
    key: {
      apiKeyId: row.id,
      organisationId: row.organisation_id,
      livemode: row.livemode,
      plan: row.plan,
      scopes: row.scopes,
    },
  };
}
