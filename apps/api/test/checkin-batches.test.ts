import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_CHECKIN_BATCH } from '@boxoffice/contract';
import { expectBadRequest, expectError, expectItem } from './assertions';
import { buildEvent, cancelFixtureOrder, changesOf, lastPosition } from './fixtures';
import {
  call,
  createKey,
  createTenant,
  createTestKey,
  getTestOrm,
  useTestServer,
  type CallResult,
  type TestTenant,
} from './setup';

const server = useTestServer();

type Keyed = Pick<TestTenant, 'key'>;
type Scan = Record<string, unknown>;

const batch = (tenant: Keyed, checkins: Scan[], headers?: Record<string, string>) =>
  call(server, 'POST', '/api/v1/checkins/batch', { key: tenant.key, body: { checkins }, headers });

const scanOne = (tenant: Keyed, body: Scan) =>
  call(server, 'POST', '/api/v1/checkins', { key: tenant.key, body });

/** The results of a batch answered 200, one per scan. */
const resultsOf = (result: CallResult) => expectItem(result) as Record<string, any>[];

const statusesOf = (result: CallResult) => resultsOf(result).map((item) => item.status);

/** The rows of one ticket and its attendee, and its check-ins in the order they were made. */
async function stateOf(ticketId: string) {
  const em = (await getTestOrm()).em.fork();
  const [ticket] = await em.execute<{ status: string; checked_in: boolean }[]>(
    `select t.status, a.checked_in from tickets t join attendees a on a.ticket_id = t.id
      where t.id = ?`,
    [ticketId],
  );
  const checkins = await em.execute<{ id: string; direction: string }[]>(
    'select id, direction from checkins where ticket_id = ? order by created_at, scanned_at',
    [ticketId],
  );
  return { ...ticket, checkins: checkins.map((checkin) => checkin.direction) };
}

/** Entry or exit scans of tickets by id, each with the key given (if any). */
const byId = (ticketId: string, more: Scan = {}): Scan => ({ ticket_id: ticketId, ...more });

describe('POST /checkins/batch', () => {
  it('applies its scans in order: one ticket in, out and in again, then refused', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = tickets[0]!;
    // Applied in the batch's order, whatever the doors' clocks say.
    const answer = await batch(tenant, [
      byId(ticket.id, { gate: 'North', scanned_at: '2027-03-01T20:00:00Z' }),
      { code: ticket.code, direction: 'exit', scanned_at: '2027-03-01T19:30:00Z' },
      byId(ticket.id, { gate: 'South', scanned_at: '2027-03-01T19:00:00Z' }),
      byId(ticket.id, { gate: 'East', scanned_at: '2027-03-01T20:05:00Z' }),
    ]);
    const results = resultsOf(answer);
    expect(results.map((result) => [result.status, result.data?.direction])).toEqual([
      [201, 'entry'],
      [201, 'exit'],
      [201, 'entry'],
      [409, undefined],
    ]);
    for (const result of results.slice(0, 3)) {
      expect(result).toEqual({ status: 201, data: expect.any(Object), replayed: false });
      expect(result.data).toMatchObject({ ticket_id: ticket.id, api_key_id: tenant.apiKeyId });
    }
    // The ticket was admitted by the third scan of this batch, not the first.
    expect(results[3]).toMatchObject({
      code: 'already_checked_in',
      data: null,
      admission: results[2]!.data,
      replayed: false,
    });
    expect(await stateOf(ticket.id)).toEqual({
      status: 'checked_in',
      checked_in: true,
      checkins: ['entry', 'exit', 'entry'],
    });
  });

  it('refuses a scan on its own, as POST /checkins would, and records the others', async () => {
    const tenant = await createTenant();
    const door = await buildEvent(tenant.organisationId, { tickets: 4 });
    const other = await buildEvent(tenant.organisationId, { tickets: 1 });
    const voided = await buildEvent(tenant.organisationId, { tickets: 1 });
    await cancelFixtureOrder(tenant.organisationId, voided.order.id);
    const [first, outside, inside, last] = door.tickets;
    await scanOne(tenant, byId(inside!.id));
    const before = await lastPosition(tenant.organisationId);

    const atTheDoor = { event_id: door.event.id };
    const scans: Scan[] = [
      byId(first!.id, atTheDoor),
      { code: 'NOT-A-REAL-CODE-0000000000', ...atTheDoor },
      byId(other.tickets[0]!.id, atTheDoor),
      byId(voided.tickets[0]!.id),
      byId(outside!.id, { direction: 'exit' }),
      { code: inside!.code },
      { code: last!.code, ...atTheDoor },
    ];
    const results = resultsOf(await batch(tenant, scans));
    expect(results.map((result) => [result.status, result.code])).toEqual([
      [201, undefined],
      [404, 'not_found'],
      [422, 'wrong_event'],
      [409, 'ticket_void'],
      [409, 'not_checked_in'],
      [409, 'already_checked_in'],
      [201, undefined],
    ]);
    // Each refusal is the answer the scan alone gets (after the batch: nothing changed since).
    for (const [i, result] of results.entries()) {
      if (result.status === 201) continue;
      const alone = await scanOne(tenant, scans[i]!);
      expect(alone.status).toBe(result.status);
      expect({ ...result, status: alone.status }).toEqual({
        ...alone.body,
        status: alone.status,
        data: null,
        replayed: false,
      });
    }

    expect(await stateOf(first!.id)).toMatchObject({ status: 'checked_in', checkins: ['entry'] });
    expect(await stateOf(last!.id)).toMatchObject({ status: 'checked_in', checkins: ['entry'] });
    expect(await stateOf(outside!.id)).toEqual({
      status: 'valid',
      checked_in: false,
      checkins: [],
    });
    expect(await stateOf(inside!.id)).toMatchObject({ checkins: ['entry'] });
    expect(await stateOf(other.tickets[0]!.id)).toMatchObject({ status: 'valid', checkins: [] });
    expect(await stateOf(voided.tickets[0]!.id)).toMatchObject({ status: 'void', checkins: [] });

    // Each admitted scan recorded what a single check-in records; the refused ones nothing.
    const changes = await changesOf(tenant.organisationId, before);
    expect(changes.map((change) => [change.type, change.object_id])).toEqual(
      [first!, last!].flatMap((ticket) => [
        ['ticket.updated', ticket.id],
        ['attendee.updated', ticket.attendeeId],
        [
          'checkin.created',
          results.find((result) => result.data?.ticket_id === ticket.id)!.data.id,
        ],
      ]),
    );
  });

  it('names the check-in that admitted a ticket at another door, also for a single scan', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const ticket = tickets[0]!;
    const first = await scanOne(tenant, {
      code: ticket.code,
      gate: 'North',
      device_id: 'scanner-1',
      scanned_at: '2027-03-01T19:02:11Z',
    });
    expect(first.status).toBe(201);
    const door = await createKey(tenant.organisationId, ['checkins:write']);
    const [again] = resultsOf(
      await batch(door, [byId(ticket.id, { gate: 'South', device_id: 'scanner-9' })]),
    );
    expect(again).toEqual({
      status: 409,
      data: null,
      error: `ticket already checked in at ${first.body.data.created_at}`,
      code: 'already_checked_in',
      admission: first.body.data,
      replayed: false,
    });
    const single = await scanOne(door, byId(ticket.id));
    expect(expectError(single, 409, again!.error).admission).toEqual(first.body.data);
  });

  it('answers a scan sent again with its idempotency_key as it did, recording nobody twice', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 2 });
    const door = `door-${randomUUID()}`;
    const scans = [
      byId(tickets[0]!.id, { idempotency_key: `${door}:1` }),
      byId(tickets[1]!.id, { idempotency_key: `${door}:2` }),
      byId(tickets[1]!.id, { idempotency_key: `${door}:3` }),
      { code: 'NOT-A-REAL-CODE-0000000000', idempotency_key: `${door}:4` },
    ];
    const first = resultsOf(await batch(tenant, scans));
    expect(first.map((result) => result.status)).toEqual([201, 201, 409, 404]);
    const position = await lastPosition(tenant.organisationId);

    // The answer was lost: the door sends the batch again, and a new scan after it.
    const later = byId(tickets[0]!.id, { direction: 'exit', idempotency_key: `${door}:5` });
    const again = resultsOf(await batch(tenant, [...scans, later]));
    expect(again.slice(0, 4)).toEqual(first.map((result) => ({ ...result, replayed: true })));
    expect(again[4]).toMatchObject({ status: 201, data: { direction: 'exit' }, replayed: false });
    expect((await stateOf(tickets[0]!.id)).checkins).toEqual(['entry', 'exit']);
    expect((await stateOf(tickets[1]!.id)).checkins).toEqual(['entry']);
    expect((await changesOf(tenant.organisationId, position)).map((c) => c.type)).toEqual([
      'ticket.updated',
      'attendee.updated',
      'checkin.created',
    ]);
  });

  it('refuses a key used again with another scan, and answers a key twice in one batch once', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 2 });
    const key = `scan-${randomUUID()}`;
    const [admitted, twice, reused] = resultsOf(
      await batch(tenant, [
        byId(tickets[0]!.id, { idempotency_key: key }),
        byId(tickets[0]!.id, { idempotency_key: key }),
        byId(tickets[1]!.id, { idempotency_key: key }),
      ]),
    );
    expect(admitted).toMatchObject({ status: 201, replayed: false });
    expect(twice).toEqual({ ...admitted, replayed: true });
    const keyReused = {
      status: 422,
      data: null,
      error: 'idempotency_key has already been used with a different scan',
      code: 'idempotency_key_reused',
      replayed: false,
    };
    expect(reused).toEqual(keyReused);
    expect(
      resultsOf(await batch(tenant, [byId(tickets[1]!.id, { idempotency_key: key })])),
    ).toEqual([keyReused]);
    expect((await stateOf(tickets[1]!.id)).checkins).toEqual([]);

    // A scan's keys are apart from Idempotency-Key headers: the same text there is another key.
    const header = await scanOne(tenant, byId(tickets[1]!.id));
    expect(header.status).toBe(201);
    const sameText = await call(server, 'POST', '/api/v1/checkins', {
      key: tenant.key,
      body: byId(tickets[1]!.id, { direction: 'exit' }),
      headers: { 'idempotency-key': key },
    });
    expect(sameText.status, JSON.stringify(sameText.body)).toBe(201);
  });

  it('admits nobody twice when one batch is sent twice at once', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 20 });
    const scans = tickets.map((ticket) =>
      byId(ticket.id, { idempotency_key: `once-${ticket.id}` }),
    );
    const [a, b] = (await Promise.all([batch(tenant, scans), batch(tenant, scans)])).map(resultsOf);
    // Each scan ran in one of the two: the other answered it for its key, replayed or still held.
    for (const [i, first] of a!.entries()) {
      const pair = [first, b![i]!];
      const ran = pair.filter((result) => result.status === 201 && !result.replayed);
      expect(ran, JSON.stringify(pair)).toHaveLength(1);
      const other = pair.find((result) => result !== ran[0])!;
      if (other.replayed) expect(other).toEqual({ ...ran[0], replayed: true });
      else expect(other).toMatchObject({ status: 409, code: 'idempotency_in_flight' });
    }
    for (const ticket of tickets) expect((await stateOf(ticket.id)).checkins).toEqual(['entry']);
  });

  it('replays the whole answer for a repeated Idempotency-Key', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 2 });
    const headers = { 'idempotency-key': randomUUID() };
    const scans = [byId(tickets[0]!.id), { code: 'NOT-A-REAL-CODE-0000000000' }];
    const first = await batch(tenant, scans, headers);
    expect(statusesOf(first)).toEqual([201, 404]);
    const replay = await batch(tenant, scans, headers);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await stateOf(tickets[0]!.id)).checkins).toEqual(['entry']);
    const other = await batch(tenant, [byId(tickets[1]!.id)], headers);
    expectError(other, 422, 'Idempotency-Key has already been used with a different request');
    expect((await stateOf(tickets[1]!.id)).checkins).toEqual([]);
  });

  it('refuses the whole batch for one malformed scan, naming it, and records nothing', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    const valid = byId(tickets[0]!.id);
    const refused = [
      [[valid, valid, valid, { code: 'abc', direction: 'sideways' }], 'checkins.3.direction'],
      [[valid, { gate: 'North' }], 'checkins.1'],
      [[valid, { code: 'abc', idempotency_key: '' }], 'checkins.1.idempotency_key'],
      [[valid, { code: 'abc', door: 3 }], 'checkins.1'],
      [[], 'checkins'],
      [Array.from({ length: MAX_CHECKIN_BATCH + 1 }, () => valid), 'checkins'],
    ] as const;
    for (const [scans, field] of refused) {
      const answer = await batch(tenant, [...scans]);
      const body = expectError(answer, 400, /./);
      expect(body.code).toBe('validation_failed');
      expect(body.details[0].field, JSON.stringify(body)).toBe(field);
    }
    expectBadRequest(
      await batch(tenant, [valid, { code: 'abc', direction: 'sideways' }]),
      'direction',
    );
    expect((await stateOf(tickets[0]!.id)).checkins).toEqual([]);
    // 100 scans are a batch.
    const full = Array.from({ length: MAX_CHECKIN_BATCH }, () => valid);
    expect(statusesOf(await batch(tenant, full))).toEqual([201, ...full.slice(1).map(() => 409)]);
  });

  it('needs the checkins:write scope', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 1 });
    for (const scopes of [['read'], ['read', 'write']] as const) {
      const key = await createKey(tenant.organisationId, [...scopes]);
      const refused = await batch(key, [byId(tickets[0]!.id)]);
      const body = expectError(refused, 403, "This API key lacks the 'checkins:write' scope");
      expect(body.code).toBe('missing_scope');
    }
    expect((await stateOf(tickets[0]!.id)).checkins).toEqual([]);
  });

  it('works on test data with a test key, and sees no live ticket', async () => {
    const live = await createTenant();
    const liveTicket = (await buildEvent(live.organisationId, { tickets: 1 })).tickets[0]!;
    const test = await createTestKey(live.organisationId);
    const testTicket = (await buildEvent(test.organisationId, { tickets: 1 })).tickets[0]!;
    const results = resultsOf(
      await batch(test, [{ code: testTicket.code }, { code: liveTicket.code }]),
    );
    expect(results.map((result) => result.status)).toEqual([201, 404]);
    expect(results[0]!.data.livemode).toBe(false);
    const [inside] = resultsOf(await batch(test, [{ code: testTicket.code }]));
    expect(inside!.admission).toEqual(results[0]!.data);
    expect((await stateOf(liveTicket.id)).checkins).toEqual([]);
  });

  it('completes two batches naming the same tickets in opposite orders at once', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: 2 });
    const ids = tickets.map((ticket) => ticket.id);
    const inAndOut = (order: string[]) => [
      ...order.map((id) => byId(id)),
      ...order.map((id) => byId(id, { direction: 'exit' })),
    ];
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all([
        batch(tenant, inAndOut(ids)),
        batch(tenant, inAndOut([...ids].reverse())),
      ]);
      // Each batch ran whole, one after the other: all its scans admitted, then all let out.
      for (const answer of answers) expect(statusesOf(answer)).toEqual([201, 201, 201, 201]);
    }
    for (const id of ids) expect((await stateOf(id)).checkins).toHaveLength(20);
  });
});

describe('POST /checkins/batch against the rate limit', () => {
  const limited = useTestServer({ writesPerMinute: 10 });

  it('counts as one write, whatever its size', async () => {
    const tenant = await createTenant();
    const { tickets } = await buildEvent(tenant.organisationId, { tickets: MAX_CHECKIN_BATCH });
    const answer = await call(limited, 'POST', '/api/v1/checkins/batch', {
      key: tenant.key,
      body: { checkins: tickets.map((ticket) => byId(ticket.id)) },
    });
    expect(statusesOf(answer)).toEqual(tickets.map(() => 201));
    expect(answer.headers.get('x-ratelimit-limit')).toBe('10');
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('9');
  });
});
