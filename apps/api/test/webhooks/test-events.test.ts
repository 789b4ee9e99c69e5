import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAttemptLimits } from '../../src/http/attempt-limit';
import {
  call,
  generousAttemptLimits,
  getTestOrm,
  startTestServer,
  type CallResult,
  type TestServer,
} from '../setup';

/**
 * "Send test event" in the dashboard: each is a signed POST to a URL of the organisation's
 * choosing, so it is limited per endpoint and per organisation, with the documented numbers, in
 * either store of the limits (in this process, or Redis when configured).
 */

const redisUrl = inject('redisUrl');

let sequence = 0;

/** A signed-in dashboard user of a new organisation: keeps the session cookie and CSRF token. */
class Owner {
  cookie = '';
  csrf = '';
  constructor(readonly server: TestServer) {}

  async request(method: string, path: string, body?: unknown): Promise<CallResult> {
    const result = await call(this.server, method, `/dashboard/api${path}`, {
      body,
      headers: {
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(this.csrf && method !== 'GET' ? { 'x-csrf-token': this.csrf } : {}),
      },
    });
    const setCookie = result.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0]!;
    if (result.body?.csrf_token) this.csrf = result.body.csrf_token;
    return result;
  }

  static async signUp(server: TestServer): Promise<Owner> {
    const owner = new Owner(server);
    const result = await owner.request('POST', '/signup', {
      organisation_name: 'Test events',
      email: `test-events${Date.now()}${(sequence += 1)}@example.com`,
      password: 'a long passphrase',
    });
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    return owner;
  }

  /** A new endpoint at a public address (nothing delivers here: no engine runs). */
  async endpoint(): Promise<string> {
    sequence += 1;
    const created = await this.request('POST', '/webhooks', {
      url: `https://93.184.215.14/hooks/${sequence}`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data.id as string;
  }

  test(endpointId: string): Promise<CallResult> {
    return this.request('POST', `/webhooks/${endpointId}/test`);
  }
}

async function messagesOf(endpointId: string): Promise<number> {
  const orm = await getTestOrm();
  const [row] = await orm.em
    .fork()
    .execute<{ n: string }[]>(`select count(*) as n from webhook_messages where endpoint_id = ?`, [
      endpointId,
    ]);
  return Number(row?.n);
}

function expectRefused(result: CallResult, limit: RegExp, maxSeconds: number) {
  expect(result.status, JSON.stringify(result.body)).toBe(429);
  expect(result.body.code).toBe('too_many_test_events');
  expect(result.body.error).toMatch(limit);
  const retryAfter = Number(result.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
}

const stores = [
  { store: 'in-process', redisUrl: undefined },
  ...(redisUrl ? [{ store: 'Redis', redisUrl }] : []),
];

describe.each(stores)('test events, counted $store', ({ redisUrl: url }) => {
  let server: TestServer;
  let redis: Redis | undefined;
  beforeAll(async () => {
    redis = url ? new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 }) : undefined;
    const generous = generousAttemptLimits();
    // The documented test-event limits; everything else out of reach.
    const limits = createAttemptLimits({
      redis,
      keyPrefix: `bxo:test:${randomBytes(6).toString('hex')}`,
    });
    server = await startTestServer({
      attemptLimits: {
        ...generous,
        testEventsByEndpoint: limits.testEventsByEndpoint,
        testEventsByOrganisation: limits.testEventsByOrganisation,
      },
    });
  });
  afterAll(async () => {
    await server.close();
    redis?.disconnect();
  });

  it('allows 5 a minute per endpoint and 20 an hour per organisation, then answers 429 and makes nothing', async () => {
    const owner = await Owner.signUp(server);
    // Refused for another reason: not counted.
    for (let i = 0; i < 3; i++) {
      const missing = await owner.test('we_000000000000000000000000');
      expect(missing.status).toBe(404);
    }

    const first = await owner.endpoint();
    for (let i = 0; i < 5; i++) expect((await owner.test(first)).status).toBe(202);
    expectRefused(await owner.test(first), /at most 5 in a minute.*Try again in/, 60);
    expect(await messagesOf(first)).toBe(5);

    // Three more endpoints, five each: twenty in all for the organisation.
    for (let e = 0; e < 3; e++) {
      const endpoint = await owner.endpoint();
      const answers = await Promise.all(Array.from({ length: 5 }, () => owner.test(endpoint)));
      expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202]);
    }
    const fifth = await owner.endpoint();
    expectRefused(
      await owner.test(fifth),
      /for this organisation \(at most 20 in an hour\).*Try again in/,
      3600,
    );
    expect(await messagesOf(fifth)).toBe(0);

    // Another organisation is not held back.
    const other = await Owner.signUp(server);
    expect((await other.test(await other.endpoint())).status).toBe(202);
  });

  it('counts parallel requests: of ten at once to one endpoint, five pass', async () => {
    const owner = await Owner.signUp(server);
    const endpoint = await owner.endpoint();
    const answers = await Promise.all(Array.from({ length: 10 }, () => owner.test(endpoint)));
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(5);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(5);
    expect(await messagesOf(endpoint)).toBe(5);
  });
});
