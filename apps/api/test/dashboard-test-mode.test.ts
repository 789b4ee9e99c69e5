import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPT_LIMITS, createAttemptLimits } from '../src/http/attempt-limit';
import { TEST_SAMPLE_EVENTS } from '../src/modules/organisations/test-environment.service';
import { expectSampleCounts } from './assertions';
import { Visitor } from './dashboard-visitor';
import { eventInput } from './fixtures';
import { call, getTestOrm, startTestServer, type CallResult, type TestServer } from './setup';

/**
 * The dashboard in test mode: every keys and webhooks route acts on the signed-in organisation's
 * test environment when `X-Boxoffice-Mode: test` says so, and on its live data otherwise; nothing
 * of one mode is found in the other. Resetting the test data keeps its keys and endpoints.
 */

/** Test events an organisation may send, in both modes together (low, to reach it). */
const TEST_EVENTS_PER_ORGANISATION = 3;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    attemptLimits: createAttemptLimits({
      limits: Object.fromEntries([
        ...Object.entries(ATTEMPT_LIMITS).map(([name, limit]) => [
          name,
          { ...limit, points: 100_000 },
        ]),
        [
          'testEventsByOrganisation',
          { points: TEST_EVENTS_PER_ORGANISATION, durationSeconds: 3600 },
        ],
      ]),
    }),
  });
});
afterAll(() => server.close());

const TEST = { 'x-boxoffice-mode': 'test' };
const LIVE = { 'x-boxoffice-mode': 'live' };

/** A signed-up owner whose requests name a mode (`test`, `live`) or none. */
class Owner extends Visitor {
  in(headers: Record<string, string>) {
    return {
      get: (path: string) => this.request('GET', path, undefined, headers),
      post: (path: string, body?: unknown) => this.request('POST', path, body, headers),
      patch: (path: string, body: unknown) => this.request('PATCH', path, body, headers),
      delete: (path: string) => this.request('DELETE', path, undefined, headers),
    };
  }

  static async signUp(): Promise<Owner & { organisationId: string }> {
    const owner = new Owner(server);
    const { result } = await owner.signUp();
    return Object.assign(owner, { organisationId: result.body.organisation.id as string });
  }
}

let endpoints = 0;
/** An address the URL policy accepts; nothing delivers to it (no engine runs here). */
const hookUrl = () => `https://93.184.215.14/hooks/${(endpoints += 1)}`;

const expectStatus = (result: CallResult, status: number) =>
  expect(result.status, JSON.stringify(result.body)).toBe(status);

const ids = (result: CallResult): string[] =>
  (result.body.data as { id: string }[]).map((item) => item.id);

/**
 * The active keys of a list: the test environment's sample data leaves a revoked key of its own
 * (the door scanners' that made its check-ins).
 */
const activeKeys = (result: CallResult): string[] =>
  (result.body.data as { id: string; status: string }[])
    .filter((key) => key.status === 'active')
    .map((key) => key.id);

async function countRows(table: 'api_keys' | 'webhook_endpoints', organisationId: string) {
  const [row] = await (
    await getTestOrm()
  ).em
    .fork()
    .execute<{ n: string }[]>(`select count(*) as n from ${table} where organisation_id = ?`, [
      organisationId,
    ]);
  return Number(row?.n);
}

describe('keys in each mode', () => {
  it('creates bxo_test_ keys in test mode, which only the test list shows, and live keys otherwise', async () => {
    const owner = await Owner.signUp();
    const live = await owner.in({}).post('/keys', { name: 'Live app', scopes: ['read'] });
    expectStatus(live, 201);
    expect(live.body.data.secret).toMatch(/^bxo_live_/);
    expect(live.body.data.key).toMatchObject({ hint: expect.stringMatching(/^bxo_live_…/) });
    expect(live.body.data.key.livemode).toBe(true);

    const test = await owner.in(TEST).post('/keys', { name: 'Test app', scopes: ['read'] });
    expectStatus(test, 201);
    const secret: string = test.body.data.secret;
    expect(secret).toMatch(/^bxo_test_[0-9A-Za-z]{32,}$/);
    expect(test.body.data.key).toMatchObject({
      name: 'Test app',
      hint: `bxo_test_…${secret.slice(-4)}`,
      livemode: false,
      status: 'active',
    });

    const testList = await owner.in(TEST).get('/keys');
    expectStatus(testList, 200);
    expect(activeKeys(testList)).toEqual([test.body.data.key.id]);
    expect(ids(testList)).not.toContain(live.body.data.key.id);
    expect(testList.body.data.every((key: { livemode: boolean }) => !key.livemode)).toBe(true);
    // Live is the default, and `live` says it explicitly.
    for (const mode of [{}, LIVE]) {
      const liveList = await owner.in(mode).get('/keys');
      expect(ids(liveList)).toEqual([live.body.data.key.id]);
      expect(liveList.body.data[0].livemode).toBe(true);
    }

    // The test key reaches the test environment's sample data, once the organisation is on Pro.
    expect((await call(server, 'GET', '/api/v1/events', { key: secret })).status).toBe(402);
    expectStatus(await owner.request('PUT', '/plan', { plan: 'pro' }), 200);
    const events = await call(server, 'GET', '/api/v1/events', { key: secret });
    expectStatus(events, 200);
    expect(events.body.data).toHaveLength(TEST_SAMPLE_EVENTS);
    expect(events.body.data.every((event: { livemode: boolean }) => !event.livemode)).toBe(true);
  });

  it('does not find a key of the other mode (404), and leaves it active', async () => {
    const owner = await Owner.signUp();
    const live = (await owner.in({}).post('/keys', { name: 'Live', scopes: ['read'] })).body.data;
    const test = (await owner.in(TEST).post('/keys', { name: 'Test', scopes: ['read'] })).body.data;

    const fromTest = await owner.in(TEST).post(`/keys/${live.key.id}/revoke`);
    expectStatus(fromTest, 404);
    expect(fromTest.body.code).toBe('not_found');
    expectStatus(await owner.in({}).post(`/keys/${test.key.id}/revoke`), 404);
    expectStatus(await owner.in(LIVE).post(`/keys/${test.key.id}/revoke`), 404);
    expect((await owner.in({}).get('/keys')).body.data[0].status).toBe('active');
    expect(activeKeys(await owner.in(TEST).get('/keys'))).toEqual([test.key.id]);

    // In its own mode it is revoked, and stops working.
    const revoked = await owner.in(TEST).post(`/keys/${test.key.id}/revoke`);
    expectStatus(revoked, 200);
    expect(revoked.body.data).toMatchObject({ status: 'revoked', livemode: false });
    const refused = await call(server, 'GET', '/api/v1/events', { key: test.secret });
    expect(refused.status).toBe(401);
  });

  it('never shows another organisation’s test keys', async () => {
    const alice = await Owner.signUp();
    const bob = await Owner.signUp();
    const key = (await alice.in(TEST).post('/keys', { name: 'Alice', scopes: ['read'] })).body.data
      .key;
    const bobs = await bob.in(TEST).get('/keys');
    expect(activeKeys(bobs)).toEqual([]);
    expect(ids(bobs)).not.toContain(key.id);
    expectStatus(await bob.in(TEST).post(`/keys/${key.id}/revoke`), 404);
  });
});

describe('webhook endpoints in each mode', () => {
  it('keeps each mode’s endpoints and messages apart: the other mode gets 404 for every route', async () => {
    const owner = await Owner.signUp();
    const made: Record<'live' | 'test', { id: string; messageId: string }> = {
      live: { id: '', messageId: '' },
      test: { id: '', messageId: '' },
    };
    for (const [mode, headers] of [
      ['live', {}],
      ['test', TEST],
    ] as const) {
      const created = await owner.in(headers).post('/webhooks', { url: hookUrl() });
      expectStatus(created, 201);
      expect(created.body.data.livemode).toBe(mode === 'live');
      const sent = await owner.in(headers).post(`/webhooks/${created.body.data.id}/test`);
      expectStatus(sent, 202);
      made[mode] = { id: created.body.data.id, messageId: sent.body.data.message_id };
    }

    for (const [mode, headers, other] of [
      ['live', LIVE, made.test],
      ['test', TEST, made.live],
    ] as const) {
      const own = made[mode];
      const list = await owner.in(headers).get('/webhooks');
      expect(ids(list), `${mode} list`).toEqual([own.id]);
      expect(list.body.data[0].livemode).toBe(mode === 'live');
      const messages = await owner.in(headers).get(`/webhooks/${own.id}/messages`);
      expect(ids(messages), `${mode} messages`).toEqual([own.messageId]);

      const attempts: [string, () => Promise<CallResult>][] = [
        ['update', () => owner.in(headers).patch(`/webhooks/${other.id}`, { description: 'x' })],
        ['reveal', () => owner.in(headers).get(`/webhooks/${other.id}/secret`)],
        ['rotate', () => owner.in(headers).post(`/webhooks/${other.id}/rotate-secret`)],
        ['test', () => owner.in(headers).post(`/webhooks/${other.id}/test`)],
        ['messages', () => owner.in(headers).get(`/webhooks/${other.id}/messages`)],
        ['resend', () => owner.in(headers).post(`/webhook-messages/${other.messageId}/resend`)],
        ['delete', () => owner.in(headers).delete(`/webhooks/${other.id}`)],
      ];
      for (const [name, attempt] of attempts) {
        const result = await attempt();
        expect(result.status, `${mode} ${name}: ${JSON.stringify(result.body)}`).toBe(404);
      }
    }

    // Nothing of the other mode changed: each endpoint is still there, as it was.
    for (const [headers, own] of [
      [{}, made.live],
      [TEST, made.test],
    ] as const) {
      const [endpoint] = (await owner.in(headers).get('/webhooks')).body.data;
      expect(endpoint).toMatchObject({ id: own.id, description: null, status: 'enabled' });
      expect(ids(await owner.in(headers).get(`/webhooks/${own.id}/messages`))).toHaveLength(1);
    }

    // In their own mode the same routes work.
    const updated = await owner.in(TEST).patch(`/webhooks/${made.test.id}`, { description: 'QA' });
    expectStatus(updated, 200);
    expect(updated.body.data).toMatchObject({ description: 'QA', livemode: false });
    expectStatus(await owner.in(TEST).get(`/webhooks/${made.test.id}/secret`), 200);
    expectStatus(await owner.in(TEST).post(`/webhooks/${made.test.id}/rotate-secret`), 200);
    expectStatus(await owner.in(TEST).post(`/webhook-messages/${made.test.messageId}/resend`), 202);
    expectStatus(await owner.in(TEST).delete(`/webhooks/${made.test.id}`), 200);
    expect((await owner.in(TEST).get('/webhooks')).body.data).toEqual([]);
    expect(ids(await owner.in({}).get('/webhooks'))).toEqual([made.live.id]);
  });

  it('counts test events of both modes against the organisation’s one limit', async () => {
    const owner = await Owner.signUp();
    const live = (await owner.in({}).post('/webhooks', { url: hookUrl() })).body.data.id;
    const test = (await owner.in(TEST).post('/webhooks', { url: hookUrl() })).body.data.id;
    const statuses: number[] = [];
    for (let i = 0; i < TEST_EVENTS_PER_ORGANISATION + 1; i++) {
      const [headers, id] = i % 2 === 0 ? [TEST, test] : [{}, live];
      statuses.push((await owner.in(headers).post(`/webhooks/${id}/test`)).status);
    }
    expect(statuses).toEqual([...Array<number>(TEST_EVENTS_PER_ORGANISATION).fill(202), 429]);
  });
});

describe('the mode header', () => {
  it.each([['TEST'], ['sandbox'], [''], ['test, live']])(
    'refuses %j with a 400 naming the allowed values, and changes nothing',
    async (mode) => {
      const owner = await Owner.signUp();
      const headers = { 'x-boxoffice-mode': mode };
      for (const [method, path, body] of [
        ['GET', '/keys', undefined],
        ['POST', '/keys', { name: 'Bad', scopes: ['read'] }],
        ['GET', '/webhooks', undefined],
        ['POST', '/webhooks', { url: hookUrl() }],
      ] as const) {
        const result = await owner.request(method, path, body, headers);
        expect(result.status, `${method} ${path}`).toBe(400);
        expect(result.body).toMatchObject({
          code: 'validation_failed',
          error: 'x-boxoffice-mode must be one of: live, test',
        });
      }
      const em = (await getTestOrm()).em.fork();
      const [twin] = await em.execute<{ id: string }[]>(
        `select id from organisations where live_organisation_id = ?`,
        [owner.organisationId],
      );
      for (const organisationId of [owner.organisationId, twin!.id]) {
        expect(await countRows('api_keys', organisationId)).toBe(0);
        expect(await countRows('webhook_endpoints', organisationId)).toBe(0);
      }
    },
  );

  it('is only read by the routes that act on one mode: the session and the plan ignore it', async () => {
    const owner = await Owner.signUp();
    expectStatus(await owner.in(TEST).get('/session'), 200);
    const plan = await owner.in(TEST).get('/plan');
    expectStatus(plan, 200);
    expect(plan.body.data.plan).toBe('free');
  });
});

describe('resetting the test data', () => {
  /** An owner on Pro with a test key, a test endpoint with a message, and data in both modes. */
  async function ownerWithData() {
    const owner = await Owner.signUp();
    expectStatus(await owner.request('PUT', '/plan', { plan: 'pro' }), 200);
    const testKey = (
      await owner.in(TEST).post('/keys', { name: 'Test writer', scopes: ['read', 'write'] })
    ).body.data;
    const liveKey = (
      await owner.in({}).post('/keys', { name: 'Live writer', scopes: ['read', 'write'] })
    ).body.data;
    const endpoint = (await owner.in(TEST).post('/webhooks', { url: hookUrl() })).body.data;
    expectStatus(await owner.in(TEST).post(`/webhooks/${endpoint.id}/test`), 202);
    for (const [key, name] of [
      [testKey.secret, 'Test rehearsal'],
      [liveKey.secret, 'Opening night'],
    ] as const) {
      const event = await call(server, 'POST', '/api/v1/events', { key, body: eventInput(name) });
      expectStatus(event, 201);
    }
    return { owner, testKey, liveKey, endpoint };
  }

  const eventNames = async (key: string): Promise<string[]> => {
    const result = await call(server, 'GET', '/api/v1/events?limit=100', { key });
    expectStatus(result, 200);
    return (result.body.data as { name: string }[]).map((event) => event.name);
  };

  it('empties the test data and seeds it again; its keys and endpoints stay, live data too', async () => {
    const { owner, testKey, liveKey, endpoint } = await ownerWithData();
    expect(await eventNames(testKey.secret)).toContain('Test rehearsal');
    expect(await eventNames(testKey.secret)).toHaveLength(TEST_SAMPLE_EVENTS + 1);

    const reset = await owner.request('POST', '/test-environment/reset');
    expectStatus(reset, 200);
    expectSampleCounts(reset.body.data, TEST_SAMPLE_EVENTS);
    expect(reset.body.data.orders).toBeGreaterThan(0);

    // Fresh sample data, reached with the same key; the test endpoint stays, its messages go.
    const after = await eventNames(testKey.secret);
    expect(after).toHaveLength(TEST_SAMPLE_EVENTS);
    expect(after).not.toContain('Test rehearsal');
    expect(activeKeys(await owner.in(TEST).get('/keys'))).toEqual([testKey.key.id]);
    expect(ids(await owner.in(TEST).get('/webhooks'))).toEqual([endpoint.id]);
    expect((await owner.in(TEST).get(`/webhooks/${endpoint.id}/messages`)).body.data).toEqual([]);

    // Live is untouched.
    expect(await eventNames(liveKey.secret)).toEqual(['Opening night']);
    expect(ids(await owner.in({}).get('/keys'))).toEqual([liveKey.key.id]);
  });

  it('acts on the test environment whatever the mode header says', async () => {
    const { owner, testKey, liveKey } = await ownerWithData();
    expectStatus(await owner.request('POST', '/test-environment/reset', undefined, LIVE), 200);
    expect(await eventNames(testKey.secret)).not.toContain('Test rehearsal');
    expect(await eventNames(liveKey.secret)).toEqual(['Opening night']);
  });

  it('needs a session and the CSRF token from this origin, and resets nothing without them', async () => {
    const { owner, testKey } = await ownerWithData();
    const attempts: [string, number, () => Promise<CallResult>][] = [
      [
        'no token',
        403,
        () =>
          call(server, 'POST', '/dashboard/api/test-environment/reset', {
            headers: { cookie: owner.cookie },
          }),
      ],
      [
        'a wrong token',
        403,
        () =>
          call(server, 'POST', '/dashboard/api/test-environment/reset', {
            headers: { cookie: owner.cookie, 'x-csrf-token': 'guess' },
          }),
      ],
      [
        'another origin',
        403,
        () =>
          owner.request('POST', '/test-environment/reset', undefined, {
            origin: 'https://evil.example',
          }),
      ],
      ['no session', 401, () => call(server, 'POST', '/dashboard/api/test-environment/reset')],
    ];
    for (const [name, status, attempt] of attempts) {
      const result = await attempt();
      expect(result.status, `${name}: ${JSON.stringify(result.body)}`).toBe(status);
    }
    expect(await eventNames(testKey.secret)).toContain('Test rehearsal');
  });
});
