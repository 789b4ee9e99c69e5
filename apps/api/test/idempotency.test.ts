import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildEvent, eventInput, failCheckinInsertsAt } from './fixtures';
import {
  call,
  createKey,
  createTenant,
  getTestOrm,
  useTestServer,
  type CallResult,
  type TestTenant,
} from './setup';

const server = useTestServer();

const post = (tenant: Pick<TestTenant, 'key'>, path: string, body: unknown, key?: string) =>
  call(server, 'POST', `/api/v1${path}`, {
    key: tenant.key,
    body,
    headers: key === undefined ? undefined : { 'idempotency-key': key },
  });

async function count(sql: string, params: unknown[]): Promise<number> {
  const orm = await getTestOrm();
  const [row] = await orm.em.fork().execute<{ count: string }[]>(sql, params);
  return Number(row!.count);
}

const eventsNamed = (organisationId: string, name: string) =>
  count('select count(*) as count from events where organisation_id = ? and name = ?', [
    organisationId,
    name,
  ]);

const recordsOf = (key: string) =>
  count('select count(*) as count from idempotency_records where key = ?', [key]);

const checkinsOf = (ticketId: string) =>
  count('select count(*) as count from checkins where ticket_id = ?', [ticketId]);

function expectReplayOf(replay: CallResult, first: CallResult) {
  expect(replay.status).toBe(first.status);
  expect(replay.body).toEqual(first.body);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
}

describe('Idempotency-Key', () => {
  it('replays a created event without creating another', async () => {
    const tenant = await createTenant();
    const key = randomUUID();
    const first = await post(tenant, '/events', eventInput('Replayed launch'), key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    // The same request, with its fields in another order, is the same request.
    const { name, ...rest } = eventInput('Replayed launch');
    const replay = await post(tenant, '/events', { ...rest, name }, key);
    expectReplayOf(replay, first);
    expect(replay.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await eventsNamed(tenant.organisationId, 'Replayed launch')).toBe(1);
  });

  it('replays a check-in: one scan, one check-in', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const key = `scan-${randomUUID()}`;
    const body = { code: tickets[0]!.code, gate: 'East' };
    const first = await post(tenant, '/checkins', body, key);
    expect(first.status).toBe(201);
    for (let i = 0; i < 3; i++) expectReplayOf(await post(tenant, '/checkins', body, key), first);
    expect(await checkinsOf(tickets[0]!.id)).toBe(1);
    // Without the key, the same scan is a new one, refused as the ticket is inside.
    expect((await post(tenant, '/checkins', body)).status).toBe(409);
  });

  it("replays the operation's own 4xx answers: 404 and 422", async () => {
    const tenant = await createTenant();
    const door = await buildEvent(tenant.organisationId, { tickets: 1 });
    const other = await buildEvent(tenant.organisationId, { tickets: 1 });

    const missing = { ticket_id: 'tkt_0000000000000000000000' };
    const notFoundKey = randomUUID();
    const notFound = await post(tenant, '/checkins', missing, notFoundKey);
    expect(notFound.status).toBe(404);
    expect(notFound.body.error).toBe('ticket not found');
    expectReplayOf(await post(tenant, '/checkins', missing, notFoundKey), notFound);

    const wrongDoor = { ticket_id: other.tickets[0]!.id, event_id: door.event.id };
    const wrongKey = randomUUID();
    const wrong = await post(tenant, '/checkins', wrongDoor, wrongKey);
    expect(wrong.status).toBe(422);
    expectReplayOf(await post(tenant, '/checkins', wrongDoor, wrongKey), wrong);
  });

  it('stores nothing for a request refused as sent (400): the key stays free', async () => {
    const tenant = await createTenant();
    const key = randomUUID();
    const invalid = await post(tenant, '/events', { name: 'No dates' }, key);
    expect(invalid.status).toBe(400);
    expect(await recordsOf(key)).toBe(0);
    // Repeated, it is refused the same way, afresh; corrected, it runs under the same key.
    const again = await post(tenant, '/events', { name: 'No dates' }, key);
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const fixed = await post(tenant, '/events', eventInput('Fixed with the same key'), key);
    expect(fixed.status).toBe(201);
    expect(await recordsOf(key)).toBe(1);
  });

  it('names a few unknown fields, not thousands, and stores nothing for them', async () => {
    const tenant = await createTenant();
    const key = randomUUID();
    const body: Record<string, unknown> = eventInput('Padded');
    for (let i = 0; i < 3000; i++) body[`unknown_field_${i}`] = i;
    const refused = await post(tenant, '/events', body, key);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe(
      'unknown fields: unknown_field_0, unknown_field_1, unknown_field_2, unknown_field_3, unknown_field_4 and 2995 more',
    );
    expect(JSON.stringify(refused.body).length).toBeLessThan(1000);
    expect(await recordsOf(key)).toBe(0);
  });

  it('does not store a 409: the retry runs again', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticketId = tickets[0]!.id;
    expect((await post(tenant, '/checkins', { ticket_id: ticketId })).status).toBe(201);

    const key = randomUUID();
    const conflict = await post(tenant, '/checkins', { ticket_id: ticketId }, key);
    expect(conflict.status).toBe(409);
    expect(
      (await post(tenant, '/checkins', { ticket_id: ticketId, direction: 'exit' })).status,
    ).toBe(201);

    const retry = await post(tenant, '/checkins', { ticket_id: ticketId }, key);
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await checkinsOf(ticketId)).toBe(3);
  });

  it('does not store a 500: the retry runs again', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticketId = tickets[0]!.id;
    const body = { ticket_id: ticketId, gate: `flaky-${ticketId}` };
    const key = randomUUID();
    const release = await failCheckinInsertsAt(body.gate);
    try {
      const failed = await post(tenant, '/checkins', body, key);
      expect(failed.status).toBe(500);
    } finally {
      await release();
    }
    const retry = await post(tenant, '/checkins', body, key);
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expectReplayOf(await post(tenant, '/checkins', body, key), retry);
    expect(await checkinsOf(ticketId)).toBe(1);
  });

  it('refuses the same key with a different body, or on another endpoint, with 422', async () => {
    const tenant = await createTenant();
    const key = randomUUID();
    const first = await post(tenant, '/events', eventInput('First body'), key);
    expect(first.status).toBe(201);

    const other = await post(tenant, '/events', eventInput('Second body'), key);
    expect(other.status).toBe(422);
    expect(other.body.error).toBe('Idempotency-Key has already been used with a different request');
    expect(other.headers.get('idempotent-replayed')).toBeNull();

    const elsewhere = await post(tenant, '/checkins', { code: 'abc' }, key);
    expect(elsewhere.status).toBe(422);
    expect(await eventsNamed(tenant.organisationId, 'Second body')).toBe(0);
    // The stored answer is still the first one.
    expectReplayOf(await post(tenant, '/events', eventInput('First body'), key), first);
  });

  it('keeps keys of different API keys apart', async () => {
    const tenant = await createTenant();
    const sibling = await createKey(tenant.organisationId, ['read', 'write']);
    const stranger = await createTenant();
    const key = randomUUID();
    const body = eventInput('Shared key');

    const mine = await post(tenant, '/events', body, key);
    const theirs = await post(sibling, '/events', body, key);
    const strangers = await post(stranger, '/events', body, key);
    for (const result of [mine, theirs, strangers]) {
      expect(result.status).toBe(201);
      expect(result.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(new Set([mine, theirs, strangers].map((r) => r.body.data.id)).size).toBe(3);
    expect(await eventsNamed(tenant.organisationId, 'Shared key')).toBe(2);
    expect(await eventsNamed(stranger.organisationId, 'Shared key')).toBe(1);
  });

  it('runs one of many simultaneous identical requests', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const key = randomUUID();
    const body = { ticket_id: tickets[0]!.id };
    const results = await Promise.all(
      Array.from({ length: 20 }, () => post(tenant, '/checkins', body, key)),
    );
    const executed = results.filter(
      (result) => result.status === 201 && result.headers.get('idempotent-replayed') === null,
    );
    expect(executed).toHaveLength(1);
    for (const result of results) {
      if (result.status === 201) {
        expect(result.body.data.id).toBe(executed[0]!.body.data.id);
      } else {
        expect(result.status, JSON.stringify(result.body)).toBe(409);
        expect(result.body.error).toMatch(/Idempotency-Key/);
        expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    }
    expect(await checkinsOf(tickets[0]!.id)).toBe(1);
    expectReplayOf(await post(tenant, '/checkins', body, key), executed[0]!);
  });

  it('refuses a key longer than 255 characters with 400 and accepts 255', async () => {
    const tenant = await createTenant();
    const tooLong = await post(tenant, '/events', eventInput('Long key'), 'k'.repeat(256));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatch(/Idempotency-Key/);
    expect(await eventsNamed(tenant.organisationId, 'Long key')).toBe(0);

    const longest = 'k'.repeat(254) + randomUUID().slice(0, 1);
    const first = await post(tenant, '/events', eventInput('Long key'), longest);
    expect(first.status).toBe(201);
    expectReplayOf(await post(tenant, '/events', eventInput('Long key'), longest), first);
  });

  it('runs the request again once the stored answer has expired', async () => {
    const tenant = await createTenant();
    const key = randomUUID();
    const body = eventInput('Expiring');
    const first = await post(tenant, '/events', body, key);
    expect(first.status).toBe(201);
    const orm = await getTestOrm();
    await orm.em.fork().execute(
      `update idempotency_records set expires_at = now() - interval '1 second'
          where api_key_id = ? and key = ?`,
      [tenant.apiKeyId, key],
    );
    const again = await post(tenant, '/events', body, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.data.id).not.toBe(first.body.data.id);
    expect(await eventsNamed(tenant.organisationId, 'Expiring')).toBe(2);
    expectReplayOf(await post(tenant, '/events', body, key), again);
  });

  it('stores the answer for 24 hours', async () => {
    const tenant = await createTenant();
    const key = randomUUID();
    expect((await post(tenant, '/events', eventInput('Day long'), key)).status).toBe(201);
    const hours = await count(
      `select round(extract(epoch from expires_at - now()) / 3600) as count
         from idempotency_records where api_key_id = ? and key = ?`,
      [tenant.apiKeyId, key],
    );
    expect(hours).toBe(24);
  });
});
