import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '@boxoffice/contract';
import { revokeKey } from '../src/modules/api-keys/api-key.service';
import { setPlan } from '../src/modules/organisations/organisation.service';
import { recordPayout } from '../src/modules/payouts/payout.service';
import { buildEvent, eventInput, type EventFixture } from './fixtures';
import {
  call,
  createKey,
  createTenant,
  getTestOrm,
  startTestServer,
  useTestServer,
  type CallResult,
  type TestTenant,
} from './setup';

const MISSING_KEY =
  "No API key provided. Send it in the Authorization header: 'Authorization: Bearer bxo_live_…' (or 'bxo_test_…' for test mode).";
const PLAN_REQUIRED =
  'API access requires the Pro plan. Upgrade in the dashboard under Settings → Plan.';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const randomBase62 = (n: number): string =>
  Array.from(randomBytes(n), (byte) => BASE62[byte % 62]).join('');

const eventBody = (name = 'Scope check') => eventInput(name);

const server = useTestServer();

type AuthCode =
  'missing_api_key' | 'malformed_authorization' | 'invalid_api_key' | 'revoked_api_key';

/** A 401 with the challenge, the code of what is wrong and a message saying what to fix. */
function expectUnauthorized(result: CallResult, code: AuthCode, error: string | RegExp) {
  expect(result.status, JSON.stringify(result.body)).toBe(401);
  expect(result.body.code).toBe(code);
  if (typeof error === 'string') expect(result.body.error).toBe(error);
  else expect(result.body.error).toMatch(error);
  expect(result.headers.get('www-authenticate')).toBe('Bearer realm="boxoffice"');
  expect(result.body).not.toHaveProperty('data');
}

const expectMissingKey = (result: CallResult) =>
  expectUnauthorized(result, 'missing_api_key', MISSING_KEY);

/** The hint of a key, as the dashboard shows it: its prefix and last four characters. */
const hintOf = (key: string) => `${key.slice(0, 'bxo_live_'.length)}…${key.slice(-4)}`;

function expectUnknownKey(result: CallResult, key: string) {
  expectUnauthorized(
    result,
    'invalid_api_key',
    `Invalid API key provided: ${hintOf(key)}. Check that the whole key was copied, or create a new one in the dashboard (Settings → API keys).`,
  );
}

async function revokedAt(apiKeyId: string): Promise<string> {
  const orm = await getTestOrm();
  const [row] = await orm.em
    .fork()
    .execute<{ revoked_at: Date | string }[]>('select revoked_at from api_keys where id = ?', [
      apiKeyId,
    ]);
  return new Date(row!.revoked_at).toISOString();
}

async function expectRevokedKey(result: CallResult, tenant: TestTenant) {
  expectUnauthorized(
    result,
    'revoked_api_key',
    `This API key (${hintOf(tenant.key)}) was revoked on ${await revokedAt(tenant.apiKeyId)}; create a new one in the dashboard (Settings → API keys).`,
  );
}

async function setOrgPlan(organisationId: string, plan: 'free' | 'pro') {
  const orm = await getTestOrm();
  await setPlan(orm.em.fork(), organisationId, plan);
}

async function revoke(apiKeyId: string) {
  const orm = await getTestOrm();
  await revokeKey(orm.em.fork(), apiKeyId);
}

describe('401: the key', () => {
  it('refuses a request without an Authorization header: missing_api_key', async () => {
    expectMissingKey(await call(server, 'GET', '/api/v1/events'));
    expectMissingKey(
      await call(server, 'GET', '/api/v1/events', { headers: { authorization: '' } }),
    );
  });

  const USE_BEARER = "send the API key as 'Authorization: Bearer bxo_live_…' (or bxo_test_…).";
  it.each([
    [
      'Basic',
      (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
      `The Authorization header uses the Basic scheme; ${USE_BEARER}`,
    ],
    [
      'Basic with the raw key',
      (key: string) => `Basic ${key}`,
      `The Authorization header uses the Basic scheme; ${USE_BEARER}`,
    ],
    [
      'Token',
      (key: string) => `Token ${key}`,
      `The Authorization header uses the Token scheme; ${USE_BEARER}`,
    ],
    [
      'no scheme',
      (key: string) => key,
      `The Authorization header must be 'Bearer' and the key; ${USE_BEARER}`,
    ],
    [
      'an empty Bearer',
      () => 'Bearer ',
      `The Authorization header has no API key after 'Bearer'; ${USE_BEARER}`,
    ],
    [
      'Bearer with two tokens',
      (key: string) => `Bearer ${key} ${key}`,
      `The Authorization header must hold one API key after 'Bearer'; ${USE_BEARER}`,
    ],
  ])('refuses a valid key sent with %s: malformed_authorization', async (_name, header, error) => {
    const tenant = await createTenant();
    const result = await call(server, 'GET', '/api/v1/events', {
      headers: { authorization: header(tenant.key) },
    });
    expectUnauthorized(result, 'malformed_authorization', error);
    // The answer never repeats what was sent.
    expect(JSON.stringify(result.body)).not.toContain(tenant.key.slice(-8));
  });

  it.each([
    ['too short', `bxo_live_${randomBase62(31)}`],
    ['another prefix', `bxo_prod_${randomBase62(40)}`],
    ['no prefix', randomBase62(40)],
    ['characters outside base62', `bxo_live_${randomBase62(36)}-_!$`],
    ['not a key at all', 'hello'],
  ])('refuses a malformed key (%s): malformed_authorization', async (_name, key) => {
    expectUnauthorized(
      await call(server, 'GET', '/api/v1/events', { key }),
      'malformed_authorization',
      "The API key is not in the format of Boxoffice keys, 'bxo_live_' (or 'bxo_test_') and 40 letters and digits; check that the whole key was copied.",
    );
  });

  it('refuses a well-formed key that does not exist: invalid_api_key', async () => {
    for (const prefix of ['bxo_live_', 'bxo_test_']) {
      const key = `${prefix}${randomBase62(40)}`;
      // The hint shows the key's own prefix.
      expectUnknownKey(await call(server, 'GET', '/api/v1/events', { key }), key);
    }
  });

  it('refuses a key whose last character was changed: invalid_api_key', async () => {
    const tenant = await createTenant();
    const last = tenant.key.at(-1) === 'a' ? 'b' : 'a';
    const key = `${tenant.key.slice(0, -1)}${last}`;
    expectUnknownKey(await call(server, 'GET', '/api/v1/events', { key }), key);
  });

  it('refuses a revoked key on the very next request: revoked_api_key, with the date', async () => {
    const tenant = await createTenant();
    const before = await call(server, 'GET', '/api/v1/events', { key: tenant.key });
    expect(before.status).toBe(200);
    await revoke(tenant.apiKeyId);
    await expectRevokedKey(
      await call(server, 'GET', '/api/v1/events', { key: tenant.key }),
      tenant,
    );
    await expectRevokedKey(
      await call(server, 'POST', '/api/v1/events', { key: tenant.key, body: eventBody() }),
      tenant,
    );
  });

  it('a revocation applies on every server instance', async () => {
    const second = await startTestServer();
    try {
      const tenant = await createTenant();
      for (const instance of [server, second]) {
        expect((await call(instance, 'GET', '/api/v1/events', { key: tenant.key })).status).toBe(
          200,
        );
      }
      await revoke(tenant.apiKeyId);
      for (const instance of [second, server]) {
        await expectRevokedKey(
          await call(instance, 'GET', '/api/v1/events', { key: tenant.key }),
          tenant,
        );
      }
    } finally {
      await second.close();
    }
  });

  it('revoking one key leaves the organisation’s other keys working', async () => {
    const tenant = await createTenant();
    const other = await createKey(tenant.organisationId, ['read']);
    await revoke(tenant.apiKeyId);
    const result = await call(server, 'GET', '/api/v1/events', { key: other.key });
    expect(result.status).toBe(200);
  });

  it('answers 401 with a WWW-Authenticate challenge and no rate-limit headers', async () => {
    const result = await call(server, 'GET', '/api/v1/events');
    expect(result.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(result.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('402: the plan', () => {
  it('refuses a key of a free organisation with the exact message', async () => {
    const tenant = await createTenant(['read', 'write', 'checkins:write'], 'free');
    const read = await call(server, 'GET', '/api/v1/events', { key: tenant.key });
    expect(read.status).toBe(402);
    expect(read.body.error).toBe(PLAN_REQUIRED);
    // The key is known, so the answer reports its read window.
    expect(read.headers.get('x-ratelimit-limit')).toBe('100000');
    const write = await call(server, 'POST', '/api/v1/events', {
      key: tenant.key,
      body: eventBody(),
    });
    expect(write.status).toBe(402);
    expect(write.body.error).toBe(PLAN_REQUIRED);
  });

  it('applies a plan change on the next request, both ways', async () => {
    const tenant = await createTenant(['read'], 'free');
    expect((await call(server, 'GET', '/api/v1/events', { key: tenant.key })).status).toBe(402);
    await setOrgPlan(tenant.organisationId, 'pro');
    expect((await call(server, 'GET', '/api/v1/events', { key: tenant.key })).status).toBe(200);
    await setOrgPlan(tenant.organisationId, 'free');
    const downgraded = await call(server, 'GET', '/api/v1/events', { key: tenant.key });
    expect(downgraded.status).toBe(402);
    expect(downgraded.body.error).toBe(PLAN_REQUIRED);
  });
});

interface Endpoint {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  scope: Scope;
  /** The success status when the key has the scope. */
  ok: number;
  body?: () => unknown;
}

describe('403: scopes on every endpoint', () => {
  let owner: TestTenant;
  let fixture: EventFixture;
  let payoutId: string;
  let checkinId: string;
  let unusedTickets: string[];
  const keys = {} as Record<'read' | 'write' | 'checkins' | 'readWrite', TestTenant>;

  beforeAll(async () => {
    owner = await createTenant();
    fixture = await buildEvent(owner.organisationId, { tickets: 4 });
    const orm = await getTestOrm();
    const em = orm.em.fork();
    const now = new Date();
    const payout = await recordPayout(
      { em, organisationId: owner.organisationId, livemode: true },
      {
        eventId: fixture.event.id,
        grossAmount: 10_000,
        feesAmount: 500,
        refundsAmount: 0,
        currency: 'GBP',
        status: 'pending',
        periodStart: new Date(now.getTime() - 86_400_000),
        periodEnd: now,
        arrivalDate: null,
        paidAt: null,
        failureReason: null,
        createdAt: now,
      },
    );
    payoutId = payout.id;
    const scan = await call(server, 'POST', '/api/v1/checkins', {
      key: owner.key,
      body: { ticket_id: fixture.tickets[0]!.id },
    });
    expect(scan.status).toBe(201);
    checkinId = scan.body.data.id;
    unusedTickets = fixture.tickets.slice(1).map((ticket) => ticket.id);
    keys.read = await createKey(owner.organisationId, ['read']);
    keys.write = await createKey(owner.organisationId, ['write']);
    keys.checkins = await createKey(owner.organisationId, ['checkins:write']);
    keys.readWrite = await createKey(owner.organisationId, ['read', 'write']);
  });

  const endpoints = (): Endpoint[] => [
    { method: 'GET', path: '/events', scope: 'read', ok: 200 },
    { method: 'GET', path: `/events/${fixture.event.id}`, scope: 'read', ok: 200 },
    { method: 'POST', path: '/events', scope: 'write', ok: 201, body: () => eventBody() },
    {
      method: 'PATCH',
      path: `/events/${fixture.event.id}`,
      scope: 'write',
      ok: 200,
      body: () => ({ description: 'Updated in the scope check' }),
    },
    { method: 'GET', path: '/tiers', scope: 'read', ok: 200 },
    { method: 'GET', path: `/tiers/${fixture.tier.id}`, scope: 'read', ok: 200 },
    {
      method: 'POST',
      path: '/tiers',
      scope: 'write',
      ok: 201,
      body: () => ({ event_id: fixture.event.id, name: 'Balcony', price: 1000 }),
    },
    {
      method: 'PATCH',
      path: `/tiers/${fixture.tier.id}`,
      scope: 'write',
      ok: 200,
      body: () => ({ description: 'Standing' }),
    },
    { method: 'GET', path: '/orders', scope: 'read', ok: 200 },
    { method: 'GET', path: `/orders/${fixture.order.id}`, scope: 'read', ok: 200 },
    { method: 'GET', path: '/tickets', scope: 'read', ok: 200 },
    { method: 'GET', path: `/tickets/${fixture.tickets[0]!.id}`, scope: 'read', ok: 200 },
    { method: 'GET', path: '/attendees', scope: 'read', ok: 200 },
    {
      method: 'GET',
      path: `/attendees/${fixture.tickets[0]!.attendeeId}`,
      scope: 'read',
      ok: 200,
    },
    { method: 'GET', path: '/checkins', scope: 'read', ok: 200 },
    { method: 'GET', path: `/checkins/${checkinId}`, scope: 'read', ok: 200 },
    {
      method: 'POST',
      path: '/checkins',
      scope: 'checkins:write',
      ok: 201,
      body: () => ({ ticket_id: unusedTickets.shift() }),
    },
    { method: 'GET', path: '/payouts', scope: 'read', ok: 200 },
    { method: 'GET', path: `/payouts/${payoutId}`, scope: 'read', ok: 200 },
  ];

  it('covers the 19 endpoints of the API', () => {
    const list = endpoints();
    expect(list).toHaveLength(19);
    expect(new Set(list.map((e) => `${e.method} ${e.path}`)).size).toBe(19);
  });

  const cases: [string, keyof typeof keys, Scope[]][] = [
    ['read', 'read', ['read']],
    ['write', 'write', ['write']],
    ['checkins:write', 'checkins', ['checkins:write']],
    ['read+write', 'readWrite', ['read', 'write']],
  ];

  it.each(cases)(
    'a %s key gets 403 naming the missing scope, and passes where it has it',
    async (_name, which, scopes) => {
      const key = keys[which].key;
      for (const endpoint of endpoints()) {
        const body = endpoint.body?.();
        const result = await call(server, endpoint.method, `/api/v1${endpoint.path}`, {
          key,
          body,
        });
        const label = `${endpoint.method} ${endpoint.path}: ${JSON.stringify(result.body)}`;
        if (scopes.includes(endpoint.scope)) {
          expect(result.status, label).toBe(endpoint.ok);
        } else {
          expect(result.status, label).toBe(403);
          expect(result.body.error, label).toBe(`This API key lacks the '${endpoint.scope}' scope`);
        }
      }
    },
  );

  it('every endpoint refuses a missing key with 401', async () => {
    for (const endpoint of endpoints()) {
      const result = await call(server, endpoint.method, `/api/v1${endpoint.path}`, {
        body: endpoint.body ? {} : undefined,
      });
      expect(result.status, `${endpoint.method} ${endpoint.path}`).toBe(401);
      expect(result.body.code).toBe('missing_api_key');
      expect(result.body.error).toBe(MISSING_KEY);
    }
  });
});

describe('order of the checks', () => {
  it('a revoked key of a free organisation is a 401, not a 402', async () => {
    const tenant = await createTenant(['read'], 'free');
    await revoke(tenant.apiKeyId);
    await expectRevokedKey(
      await call(server, 'GET', '/api/v1/events', { key: tenant.key }),
      tenant,
    );
  });

  it('a free organisation with a key missing the scope is a 402, not a 403', async () => {
    const tenant = await createTenant(['read'], 'free');
    const result = await call(server, 'POST', '/api/v1/events', {
      key: tenant.key,
      body: eventBody(),
    });
    expect(result.status).toBe(402);
    expect(result.body.error).toBe(PLAN_REQUIRED);
  });

  describe('with a rate limit of 2 writes', () => {
    const limited = useTestServer({ readsPerMinute: 2, writesPerMinute: 2 });

    it('a missing scope is a 403 even when the rate limit is exhausted', async () => {
      const tenant = await createTenant(['read', 'write']);
      for (let i = 0; i < 2; i++) {
        const created = await call(limited, 'POST', '/api/v1/events', {
          key: tenant.key,
          body: eventBody(),
        });
        expect(created.status).toBe(201);
      }
      const exhausted = await call(limited, 'POST', '/api/v1/events', {
        key: tenant.key,
        body: eventBody(),
      });
      expect(exhausted.status).toBe(429);
      const scan = await call(limited, 'POST', '/api/v1/checkins', {
        key: tenant.key,
        body: { code: 'whatever' },
      });
      expect(scan.status).toBe(403);
      expect(scan.body.error).toBe("This API key lacks the 'checkins:write' scope");
    });

    it('an exhausted rate limit is a 429 before the body is validated or parsed', async () => {
      const tenant = await createTenant();
      for (let i = 0; i < 2; i++) {
        const invalid = await call(limited, 'POST', '/api/v1/events', {
          key: tenant.key,
          body: {},
        });
        expect(invalid.status).toBe(400);
      }
      const invalid = await call(limited, 'POST', '/api/v1/events', { key: tenant.key, body: {} });
      expect(invalid.status).toBe(429);
      const malformed = await call(limited, 'POST', '/api/v1/events', {
        key: tenant.key,
        rawBody: '{"name": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(malformed.status).toBe(429);
      const badQuery = await call(limited, 'GET', '/api/v1/events?limit=1000', { key: tenant.key });
      expect(badQuery.status).toBe(400);
    });
  });

  it('a missing key is a 401 before the body is parsed or validated', async () => {
    const malformed = await call(server, 'POST', '/api/v1/events', {
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expectMissingKey(malformed);
    const wrongType = await call(server, 'POST', '/api/v1/events', {
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectMissingKey(wrongType);
    expectMissingKey(await call(server, 'POST', '/api/v1/events', { body: { name: 42 } }));
    expectMissingKey(await call(server, 'GET', '/api/v1/events?limit=1000'));
    expectMissingKey(await call(server, 'GET', '/api/v1/events/not-an-id'));
  });

  it('a key missing the scope is a 403 before the body is parsed', async () => {
    const tenant = await createTenant(['read']);
    const result = await call(server, 'POST', '/api/v1/events', {
      key: tenant.key,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(result.status).toBe(403);
    expect(result.body.error).toBe("This API key lacks the 'write' scope");
  });
});

describe('key storage', () => {
  interface KeyRow {
    id: string;
    hint: string;
    key_hash: string;
    [column: string]: unknown;
  }

  async function keyRow(id: string): Promise<KeyRow> {
    const orm = await getTestOrm();
    const rows = await orm.em.fork().execute<KeyRow[]>('select * from api_keys where id = ?', [id]);
    expect(rows).toHaveLength(1);
    return rows[0]!;
  }

  /** `last_used_at` in epoch milliseconds (microseconds cut), or null. */
  async function lastUsed(id: string): Promise<number | null> {
    const orm = await getTestOrm();
    const [row] = await orm.em
      .fork()
      .execute<{ ms: string | null }[]>(
        'select floor(extract(epoch from last_used_at) * 1000)::bigint as ms from api_keys where id = ?',
        [id],
      );
    return row?.ms == null ? null : Number(row.ms);
  }

  it('generates bxo_live_ keys with at least 32 base62 characters', async () => {
    const tenant = await createTenant();
    const other = await createKey(tenant.organisationId, ['read']);
    expect(tenant.key).toMatch(/^bxo_live_[0-9A-Za-z]{32,}$/);
    expect(other.key).toMatch(/^bxo_live_[0-9A-Za-z]{32,}$/);
    expect(other.key).not.toBe(tenant.key);
  });

  it('stores a SHA-256 hash and a hint, never the key', async () => {
    const tenant = await createTenant();
    const row = await keyRow(tenant.apiKeyId);
    expect(row.key_hash).toBe(createHash('sha256').update(tenant.key).digest('hex'));
    expect(row.hint).toBe(`bxo_live_…${tenant.key.slice(-4)}`);
    const secret = tenant.key.slice('bxo_live_'.length);
    for (const [column, value] of Object.entries(row)) {
      expect(JSON.stringify(value), column).not.toContain(secret.slice(0, 16));
    }
  });

  it('sets last_used_at on use, but not on every request', async () => {
    const tenant = await createTenant();
    expect(await lastUsed(tenant.apiKeyId)).toBeNull();
    expect((await call(server, 'GET', '/api/v1/events', { key: tenant.key })).status).toBe(200);
    // The stamp is written beside the request, not in its path: wait for it briefly.
    let first: number | null = null;
    for (let i = 0; i < 50 && first === null; i++) {
      first = await lastUsed(tenant.apiKeyId);
      if (first === null) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(first).not.toBeNull();
    expect(Math.abs(Date.now() - first!)).toBeLessThan(10_000);

    for (let i = 0; i < 3; i++) {
      expect((await call(server, 'GET', '/api/v1/events', { key: tenant.key })).status).toBe(200);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await lastUsed(tenant.apiKeyId)).toBe(first);

    // Once the stamp is old enough, the next use refreshes it.
    const orm = await getTestOrm();
    await orm.em
      .fork()
      .execute(`update api_keys set last_used_at = now() - interval '1 hour' where id = ?`, [
        tenant.apiKeyId,
      ]);
    const stale = (await lastUsed(tenant.apiKeyId))!;
    expect((await call(server, 'GET', '/api/v1/events', { key: tenant.key })).status).toBe(200);
    let refreshed = stale;
    for (let i = 0; i < 50 && refreshed === stale; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      refreshed = (await lastUsed(tenant.apiKeyId))!;
    }
    expect(refreshed).toBeGreaterThan(stale + 30 * 60_000);
  });
});
