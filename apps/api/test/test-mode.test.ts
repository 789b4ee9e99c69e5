import { beforeAll, describe, expect, it } from 'vitest';
import type { TenantContext } from '../src/core/context';
import { newId } from '../src/core/ids';
import {
  resetTestEnvironment,
  testOrganisationOf,
} from '../src/modules/organisations/test-environment.service';
import { revokeKey } from '../src/modules/api-keys/api-key.service';
import { createEndpoint } from '../src/modules/webhooks/webhook-endpoint.service';
import { expectError, expectItem, expectJson, expectList } from './assertions';
import {
  buildEvent,
  buildPayout,
  contextOf,
  DATA_TABLES,
  eventInput,
  TABLE_OF_LIST,
  type LISTS,
  type EventFixture,
} from './fixtures';
import {
  call,
  createKey,
  createTenant,
  createTestKey,
  getTestOrm,
  useTestServer,
  type TestTenant,
} from './setup';
import { useReceiverAndEngine } from './webhooks/harness';

/**
 * Test mode over real HTTP: a live organisation and its test environment, each with data of its
 * own, and the keys of each (`bxo_live_…`, `bxo_test_…`) trying to see and change the other's.
 */

const server = useTestServer();

/** The table behind each list of the API. */
const TABLES: Record<(typeof LISTS)[number] | 'webhook_endpoints', string> = {
  ...TABLE_OF_LIST,
  webhook_endpoints: 'webhook_endpoints',
};

async function rows<T>(sql: string, ...values: unknown[]): Promise<T[]> {
  return (await getTestOrm()).em.fork().execute<T[]>(sql, values);
}

const revokedKeysOf = (organisationId: string) =>
  rows<{ id: string }>(
    `select id from api_keys where organisation_id = ? and revoked_at is not null`,
    organisationId,
  );

const idsIn = async (table: string, organisationId: string): Promise<Set<string>> =>
  new Set(
    (
      await rows<{ id: string }>(
        `select id from ${table} where organisation_id = ?`,
        organisationId,
      )
    ).map((row) => row.id),
  );

/** One of each resource, in one mode: what the other mode's key tries to reach. */
interface Made {
  tenant: TestTenant;
  livemode: boolean;
  fixture: EventFixture;
  payoutId: string;
  checkinId: string;
  endpointId: string;
}

async function make(tenant: TestTenant, livemode: boolean): Promise<Made> {
  const fixture = await buildEvent(tenant.organisationId, { tickets: 3 });
  const payout = await buildPayout(tenant.organisationId);
  const checkin = expectItem(
    await server.post(tenant, '/api/v1/checkins', { ticket_id: fixture.tickets[0]!.id }),
    201,
  );
  const endpoint = expectItem(
    await server.post(tenant, '/api/v1/webhook_endpoints', {
      url: 'https://hooks.example.com/test-mode',
      events: ['event.created'],
    }),
    201,
  );
  return {
    tenant,
    livemode,
    fixture,
    payoutId: payout.id,
    checkinId: checkin.id,
    endpointId: endpoint.id,
  };
}

/** The path and id of each of a mode's resources. */
const resourcesOf = (made: Made): [string, string][] => [
  ['events', made.fixture.event.id],
  ['tiers', made.fixture.tier.id],
  ['orders', made.fixture.order.id],
  ['tickets', made.fixture.tickets[0]!.id],
  ['attendees', made.fixture.tickets[0]!.attendeeId],
  ['checkins', made.checkinId],
  ['payouts', made.payoutId],
  ['webhook_endpoints', made.endpointId],
];

let live: Made;
let test: Made;

beforeAll(async () => {
  const liveTenant = await createTenant();
  const testTenant = await createTestKey(liveTenant.organisationId);
  live = await make(liveTenant, true);
  test = await make(testTenant, false);
}, 60_000);

describe('test keys', () => {
  it('are bxo_test_ keys of a test environment: a second organisation row, twin of the live one', async () => {
    expect(test.tenant.key).toMatch(/^bxo_test_[0-9A-Za-z]{40}$/);
    expect(live.tenant.key).toMatch(/^bxo_live_[0-9A-Za-z]{40}$/);
    expect(test.tenant.organisationId).not.toBe(live.tenant.organisationId);
    const [twin] = await rows<{ live_organisation_id: string; test_data_seeded_at: Date | null }>(
      `select live_organisation_id, test_data_seeded_at from organisations where id = ?`,
      test.tenant.organisationId,
    );
    expect(twin).toMatchObject({ live_organisation_id: live.tenant.organisationId });
    expect(twin!.test_data_seeded_at).not.toBeNull();
    const [key] = await rows<{ hint: string }>(
      `select hint from api_keys where id = ?`,
      test.tenant.apiKeyId,
    );
    expect(key!.hint).toBe(`bxo_test_…${test.tenant.key.slice(-4)}`);
  });

  it('start with sample data of the test environment’s own', async () => {
    const events = expectList(await server.get(test.tenant, '/api/v1/events?limit=100'));
    // Three sample events, and the one made above.
    expect(events.total).toBe(4);
  });
});

describe('every list shows one mode only', () => {
  for (const path of Object.keys(TABLES) as (keyof typeof TABLES)[]) {
    it(`/${path}`, async () => {
      for (const [mine, other] of [
        [live, test],
        [test, live],
      ] as const) {
        const result = await server.get(mine.tenant, `/api/v1/${path}?limit=100`);
        const body = path === 'webhook_endpoints' ? expectJson(result, 200) : expectList(result);
        const own = await idsIn(TABLES[path], mine.tenant.organisationId);
        const others = await idsIn(TABLES[path], other.tenant.organisationId);
        expect(own.size, `${path} has rows in both modes`).toBeGreaterThan(0);
        expect(others.size).toBeGreaterThan(0);
        expect(body.total).toBe(own.size);
        const listed = (body.data as { id: string; livemode: boolean }[]).map((item) => {
          expect(item.livemode, item.id).toBe(mine.livemode);
          return item.id;
        });
        expect(listed.length).toBeGreaterThan(0);
        for (const id of listed) {
          expect(own.has(id), id).toBe(true);
          expect(others.has(id), id).toBe(false);
        }
      }
    });
  }

  it('a cursor of one mode does not continue in the other', async () => {
    const page = expectList(await server.get(live.tenant, '/api/v1/tickets?limit=1'));
    expect(page.next_cursor).not.toBeNull();
    const crossed = await server.get(
      test.tenant,
      `/api/v1/tickets?limit=1&cursor=${encodeURIComponent(page.next_cursor!)}`,
    );
    expect(crossed.status).toBe(400);
    expect(crossed.body.code).toBe('invalid_cursor');
  });
});

describe('an id of the other mode', () => {
  it('is a 404 on every get, as another organisation’s; its own key gets it with its mode', async () => {
    for (const [mine, other] of [
      [live, test],
      [test, live],
    ] as const) {
      for (const [path, id] of resourcesOf(other)) {
        const crossed = await server.get(mine.tenant, `/api/v1/${path}/${id}`);
        expect(crossed.status, `${path}/${id}`).toBe(404);
        expect(crossed.body.code).toBe('not_found');
      }
      for (const [path, id] of resourcesOf(mine)) {
        const item = expectItem(await server.get(mine.tenant, `/api/v1/${path}/${id}`));
        expect(item).toMatchObject({ id, livemode: mine.livemode });
      }
    }
  });

  it('cannot be changed: events, tiers, endpoints; nor be the event of a new tier', async () => {
    for (const [mine, other] of [
      [live, test],
      [test, live],
    ] as const) {
      const { event, tier } = other.fixture;
      expect(
        (await server.patch(mine.tenant, `/api/v1/events/${event.id}`, { name: 'X' })).status,
      ).toBe(404);
      expect(
        (await server.patch(mine.tenant, `/api/v1/tiers/${tier.id}`, { name: 'X' })).status,
      ).toBe(404);
      expect(
        (
          await server.patch(mine.tenant, `/api/v1/webhook_endpoints/${other.endpointId}`, {
            description: 'X',
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await call(server, 'DELETE', `/api/v1/webhook_endpoints/${other.endpointId}`, {
            key: mine.tenant.key,
          })
        ).status,
      ).toBe(404);
      const newTier = await server.post(mine.tenant, '/api/v1/tiers', {
        event_id: event.id,
        name: 'Crossed',
        price: 100,
      });
      expect(newTier.status).toBe(422);
      expect(newTier.body.code).toBe('unknown_event');
      // All as it was.
      expect(expectItem(await server.get(other.tenant, `/api/v1/events/${event.id}`)).name).toBe(
        event.name,
      );
      expect(expectItem(await server.get(other.tenant, `/api/v1/tiers/${tier.id}`)).name).toBe(
        tier.name,
      );
      expect(
        expectItem(await server.get(other.tenant, `/api/v1/webhook_endpoints/${other.endpointId}`))
          .description,
      ).toBeNull();
      const tiers = await rows<{ n: string }>(
        `select count(*) as n from ticket_tiers where event_id = ?`,
        event.id,
      );
      expect(Number(tiers[0]!.n)).toBe(1);
    }
  });

  it('cannot be checked in, by code or by ticket id: a 404, and the ticket stays valid', async () => {
    for (const [mine, other] of [
      [live, test],
      [test, live],
    ] as const) {
      const ticket = other.fixture.tickets[1]!;
      for (const body of [{ code: ticket.code }, { ticket_id: ticket.id }]) {
        const scan = await server.post(mine.tenant, '/api/v1/checkins', body);
        expectError(scan, 404, 'ticket not found');
      }
      const after = expectItem(await server.get(other.tenant, `/api/v1/tickets/${ticket.id}`));
      expect(after).toMatchObject({
        status: 'valid',
        checked_in_at: null,
        livemode: other.livemode,
      });
    }
  });
});

describe('writes in test mode', () => {
  it('answer, and record their changes, with livemode false (live ones with true)', async () => {
    for (const mine of [live, test]) {
      const event = expectItem(
        await server.post(mine.tenant, '/api/v1/events', eventInput('Mode write')),
        201,
      );
      expect(event.livemode).toBe(mine.livemode);
      const updated = expectItem(
        await server.patch(mine.tenant, `/api/v1/events/${event.id}`, { status: 'published' }),
      );
      expect(updated.livemode).toBe(mine.livemode);
      const tier = expectItem(
        await server.post(mine.tenant, '/api/v1/tiers', {
          event_id: event.id,
          name: 'GA',
          price: 0,
        }),
        201,
      );
      expect(tier.livemode).toBe(mine.livemode);
      const patched = expectItem(
        await server.patch(mine.tenant, `/api/v1/tiers/${tier.id}`, { price: 10 }),
      );
      expect(patched.livemode).toBe(mine.livemode);
      const checkin = expectItem(
        await server.post(mine.tenant, '/api/v1/checkins', { code: mine.fixture.tickets[2]!.code }),
        201,
      );
      expect(checkin.livemode).toBe(mine.livemode);
    }
    for (const mine of [live, test]) {
      const records = await rows<{ type: string; data: { livemode: unknown } }>(
        `select type, data from change_records where organisation_id = ?`,
        mine.tenant.organisationId,
      );
      expect(records.length).toBeGreaterThan(5);
      for (const record of records) expect(record.data.livemode, record.type).toBe(mine.livemode);
    }
  });

  it('keep the idempotency keys of a live key and a test key apart', async () => {
    const headers = { 'idempotency-key': `mode-${Date.now()}` };
    const body = eventInput('Idempotent in both modes');
    const send = (mine: Made) =>
      call(server, 'POST', '/api/v1/events', { key: mine.tenant.key, body, headers });
    const liveFirst = await send(live);
    const testFirst = await send(test);
    const liveAgain = await send(live);
    const testAgain = await send(test);
    for (const answer of [liveFirst, testFirst, liveAgain, testAgain])
      expect(answer.status).toBe(201);
    expect(liveFirst.headers.get('idempotent-replayed')).toBeNull();
    expect(testFirst.headers.get('idempotent-replayed')).toBeNull();
    expect(liveFirst.body.data.id).not.toBe(testFirst.body.data.id);
    expect(liveFirst.body.data.livemode).toBe(true);
    expect(testFirst.body.data.livemode).toBe(false);
    expect(liveAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(testAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(liveAgain.body).toEqual(liveFirst.body);
    expect(testAgain.body).toEqual(testFirst.body);
  });
});

describe('webhooks in test mode', () => {
  const { receiver } = useReceiverAndEngine();

  it('carry livemode on the envelope and the object; an endpoint hears its own mode only', async () => {
    const orm = await getTestOrm();
    for (const mine of [live, test]) {
      const ctx: TenantContext = {
        em: orm.em.fork(),
        organisationId: mine.tenant.organisationId,
        livemode: mine.livemode,
      };
      await createEndpoint(
        ctx,
        { url: receiver.url(`mode-${mine.livemode}`), events: ['event.created'] },
        { allowHttp: true, allowPrivate: true },
      );
    }
    const made = new Map<boolean, string>();
    for (const mine of [live, test]) {
      const event = expectItem(
        await server.post(mine.tenant, '/api/v1/events', eventInput(`Hook ${mine.livemode}`)),
        201,
      );
      made.set(mine.livemode, event.id);
    }
    for (const mine of [live, test]) {
      const [delivery, ...more] = await receiver.receivedAtLeast(
        `mode-${mine.livemode}`,
        1,
        20_000,
      );
      expect(more).toEqual([]);
      const payload = JSON.parse(delivery!.body) as {
        type: string;
        livemode: boolean;
        data: { object: { id: string; livemode: boolean } };
      };
      expect(payload).toMatchObject({
        type: 'event.created',
        livemode: mine.livemode,
        data: { object: { id: made.get(mine.livemode), livemode: mine.livemode } },
      });
      expect(Object.keys(payload)).toEqual(['id', 'type', 'created_at', 'livemode', 'data']);
    }
  });
});

describe('access with test keys', () => {
  it('follows the live organisation’s plan: a free one’s test keys get the same 402', async () => {
    const free = await createTenant(['read'], 'free');
    const testKey = await createTestKey(free.organisationId, ['read']);
    for (const tenant of [free, testKey]) {
      const refused = await server.get(tenant, '/api/v1/events');
      expectError(refused, 402, /Pro plan/);
      expect(refused.body.code).toBe('plan_required');
    }
  });

  it('refuses a revoked test key with 401, hinting its own prefix', async () => {
    const tenant = await createTenant(['read']);
    const testKey = await createTestKey(tenant.organisationId, ['read']);
    expectList(await server.get(testKey, '/api/v1/events'));
    const revoked = await revokeKey((await getTestOrm()).em.fork(), testKey.apiKeyId);
    const refused = await server.get(testKey, '/api/v1/events');
    expectError(
      refused,
      401,
      `This API key (bxo_test_…${testKey.key.slice(-4)}) was revoked on ${revoked.revokedAt!.toISOString()}; create a new one in the dashboard (Settings → API keys).`,
    );
  });
});

describe('testOrganisationOf', () => {
  it('makes one twin, seeded once, however many ask at once', async () => {
    // An organisation without a test environment yet, as those made before test mode.
    const organisationId = newId('organisation');
    await rows(
      `insert into organisations (id, name, plan, created_at, updated_at)
       values (?, 'Older', 'pro', now(), now())`,
      organisationId,
    );
    const orm = await getTestOrm();
    // Each caller, when its call ends, finds the sample data complete: the seeder's door-scanner
    // key, revoked as its last step, is there.
    const calls = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const id = await testOrganisationOf(orm.em.fork(), organisationId);
        return { id, revokedKeys: (await revokedKeysOf(id)).length };
      }),
    );
    for (const call of calls) expect(call.revokedKeys).toBe(1);
    const ids = calls.map((call) => call.id);
    expect(new Set(ids).size).toBe(1);
    const twins = await rows<{ id: string }>(
      `select id from organisations where live_organisation_id = ?`,
      organisationId,
    );
    expect(twins.map((row) => row.id)).toEqual([ids[0]]);
    // Seeded by one of them, whose call ended when the seeding did: the sample's three events.
    expect((await idsIn('events', ids[0]!)).size).toBe(3);
    expect(await testOrganisationOf(orm.em.fork(), organisationId)).toBe(ids[0]);
    expect((await idsIn('events', ids[0]!)).size).toBe(3);
  }, 60_000);

  it('refuses a test environment, which has no twin', async () => {
    const orm = await getTestOrm();
    await expect(
      testOrganisationOf(orm.em.fork(), test.tenant.organisationId),
    ).rejects.toMatchObject({
      status: 422,
      code: 'not_live_organisation',
    });
  });
});

describe('resetTestEnvironment', () => {
  it('deletes the test data and sample data comes back; keys and endpoints stay; live data is untouched', async () => {
    const tenant = await createTenant();
    const testKey = await createTestKey(tenant.organisationId);
    const liveEvent = await buildEvent(tenant.organisationId, { tickets: 1 });
    const made = await make(testKey, false);
    const idempotent = await call(server, 'POST', '/api/v1/events', {
      key: testKey.key,
      body: eventInput('Before the reset'),
      headers: { 'idempotency-key': 'reset-1' },
    });
    expect(idempotent.status).toBe(201);
    const twin = testKey.organisationId;
    const before = new Map<string, Set<string>>();
    for (const table of DATA_TABLES) before.set(table, await idsIn(table, twin));
    const liveBefore = {
      events: await idsIn('events', tenant.organisationId),
      records: await rows(
        `select position from change_records where organisation_id = ?`,
        tenant.organisationId,
      ),
    };

    const orm = await getTestOrm();
    const counts = await resetTestEnvironment(orm.em.fork(), tenant.organisationId);
    expect(counts.events).toBe(3);

    // Data of every kind went, and the sample came back with fresh ids.
    for (const table of DATA_TABLES) {
      const now = await idsIn(table, twin);
      expect(now.size, table).toBeGreaterThan(0);
      expect(before.get(table)!.size, table).toBeGreaterThan(0);
      for (const id of before.get(table)!) expect(now.has(id), `${table} ${id}`).toBe(false);
    }
    expect((await idsIn('events', twin)).size).toBe(3);
    for (const [path, id] of resourcesOf(made).filter(([path]) => path !== 'webhook_endpoints')) {
      expect((await server.get(testKey, `/api/v1/${path}/${id}`)).status, path).toBe(404);
    }
    // Its change records are the new sample's only, its messages and stored answers gone.
    const records = await rows<{ object_id: string }>(
      `select object_id from change_records where organisation_id = ?`,
      twin,
    );
    expect(records.map((record) => record.object_id)).not.toContain(made.fixture.event.id);
    expect(await rows(`select 1 from webhook_messages where organisation_id = ?`, twin)).toEqual(
      [],
    );
    expect(
      await rows(`select 1 from idempotency_records where api_key_id = ?`, testKey.apiKeyId),
    ).toEqual([]);
    // The key still works; the endpoint is still there.
    expect(expectList(await server.get(testKey, '/api/v1/events')).total).toBe(3);
    expectItem(await server.get(testKey, `/api/v1/webhook_endpoints/${made.endpointId}`));
    // The live organisation's data as it was.
    expect(await idsIn('events', tenant.organisationId)).toEqual(liveBefore.events);
    expect(liveBefore.events.has(liveEvent.event.id)).toBe(true);
    expect(
      await rows(
        `select position from change_records where organisation_id = ?`,
        tenant.organisationId,
      ),
    ).toEqual(liveBefore.records);
  }, 60_000);

  it('is refused while the sample data is being made, and works once it is', async () => {
    const organisationId = (await createTenant()).organisationId;
    const orm = await getTestOrm();
    const firstUse = testOrganisationOf(orm.em.fork(), organisationId);
    // The first use holds the twin while it writes the sample data.
    const busy = async () =>
      (
        await rows(
          `select 1 from organisations
            where live_organisation_id = ? and test_data_busy_until > now()`,
          organisationId,
        )
      ).length > 0;
    const started = Date.now();
    while (!(await busy())) {
      if (Date.now() - started > 10_000) throw new Error('the first use never began seeding');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await expect(resetTestEnvironment(orm.em.fork(), organisationId)).rejects.toMatchObject({
      status: 409,
      code: 'test_data_busy',
    });
    const twin = await firstUse;
    expect(await busy()).toBe(false);
    expect((await idsIn('events', twin)).size).toBe(3);
    // Two resets at once: one resets, the other is told to wait; the data is one sample.
    const results = await Promise.allSettled([
      resetTestEnvironment(orm.em.fork(), organisationId),
      resetTestEnvironment(orm.em.fork(), organisationId),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((result) => result.status === 'rejected');
    expect(refused?.reason).toMatchObject({ status: 409, code: 'test_data_busy' });
    expect((await idsIn('events', twin)).size).toBe(3);
  }, 60_000);

  it('deletes revoked test keys and keeps active ones', async () => {
    const tenant = await createTenant();
    const active = await createTestKey(tenant.organisationId);
    const revoked = await createKey(active.organisationId, ['read']);
    const orm = await getTestOrm();
    await revokeKey(orm.em.fork(), revoked.apiKeyId);
    await resetTestEnvironment(orm.em.fork(), tenant.organisationId);
    const keys = await rows<{ id: string }>(
      `select id from api_keys where organisation_id = ? and revoked_at is null`,
      active.organisationId,
    );
    expect(keys.map((key) => key.id)).toEqual([active.apiKeyId]);
    // Only the new sample data's door-scanner key is revoked.
    const gone = await revokedKeysOf(active.organisationId);
    expect(gone).toHaveLength(1);
    expect(gone[0]!.id).not.toBe(revoked.apiKeyId);
    expectList(await server.get(active, '/api/v1/events'));
  }, 60_000);

  it('refuses a test environment', async () => {
    const orm = await getTestOrm();
    await expect(
      resetTestEnvironment(orm.em.fork(), test.tenant.organisationId),
    ).rejects.toMatchObject({ status: 422, code: 'not_live_organisation' });
  });
});

describe('the services’ context', () => {
  it('says the mode of the organisation it acts for', async () => {
    expect((await contextOf(live.tenant.organisationId)).livemode).toBe(true);
    expect((await contextOf(test.tenant.organisationId)).livemode).toBe(false);
  });
});
