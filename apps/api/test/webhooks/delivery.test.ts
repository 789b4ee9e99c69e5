import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '@boxoffice/contract';
import { transitionPayout } from '../../src/modules/payouts/payout-status.service';
import { deliver } from '../../src/modules/webhooks/delivery';
import { guardedLookup } from '../../src/modules/webhooks/url-guard';
import { rotateSecret } from '../../src/modules/webhooks/webhook-endpoint.service';
import { addOrder, buildPayout, cancelFixtureOrder, eventInput } from '../fixtures';
import { call, createTenant, getTestOrm, startTestServer, type TestServer } from '../setup';
import { request, sleep, startApi, stopAll, until, type ApiProcess } from '../scale/harness';
import { deliveringApiEnv, Receiver, type Delivery } from './harness';

/**
 * Webhooks end to end: two real API processes (each also delivering, as every replica does by
 * default) on the test database, and a receiver process on loopback. Signatures are checked with
 * the `standardwebhooks` library, as a receiver would.
 */

const databaseUrl = inject('databaseUrl');

const receiver = new Receiver();
let a: ApiProcess;
let b: ApiProcess;
let local: TestServer | undefined;

let endpointCount = 0;
/** A new endpoint of the tenant, through the public API, pointing at a fresh path of the receiver. */
async function addEndpoint(key: string, events?: string[]) {
  endpointCount += 1;
  const name = `ep${endpointCount}`;
  return { name, ...(await receiver.subscribe(a.baseUrl, key, name, events)) };
}

/** A new organisation with one endpoint, subscribed to `event.created` only. */
async function subscribedTenant() {
  const tenant = await createTenant();
  return { tenant, endpoint: await addEndpoint(tenant.key, ['event.created']) };
}

/** An event created through instance A with `key`: a change for the endpoints to receive. */
const postEvent = (key: string, name: string) =>
  request(a.baseUrl, 'POST', '/api/v1/events', { key, body: eventInput(name) });

/** Sets a column of an endpoint directly: a time that would otherwise take hours to come. */
async function setEndpoint(id: string, assignment: string) {
  const orm = await getTestOrm();
  await orm.em.fork().execute(`update webhook_endpoints set ${assignment} where id = ?`, [id]);
}

async function changeRecords(organisationId: string, after = '0') {
  const orm = await getTestOrm();
  return orm.em
    .fork()
    .execute<
      { position: string; transaction_id: string; type: string; data: Record<string, unknown> }[]
    >(
      `select position::text, transaction_id::text, type, data from change_records where organisation_id = ? and position > ? order by transaction_id, position`,
      [organisationId, after],
    );
}

async function lastPosition(organisationId: string): Promise<string> {
  return (await changeRecords(organisationId)).at(-1)?.position ?? '0';
}

async function attemptsOf(messageId: string) {
  const orm = await getTestOrm();
  return orm.em
    .fork()
    .execute<{ outcome: string; status_code: number | null; error: string | null }[]>(
      `select outcome, status_code, error from webhook_attempts where message_id = ? order by id`,
      [messageId],
    );
}

const verify = (secret: string, delivery: Delivery) =>
  new Webhook(secret).verify(delivery.body, delivery.headers) as {
    id: string;
    type: string;
    created_at: string;
    data: { object: Record<string, unknown> };
  };

const apiEnv = () => ({
  ...deliveringApiEnv(databaseUrl),
  METRICS_TOKEN: 'metrics-token-for-the-delivery-tests',
});

/** The successful attempts an instance has counted (`boxoffice_webhook_attempts_total`). */
async function attemptsCounted(api: ApiProcess): Promise<number> {
  const response = await fetch(`${api.baseUrl}/metrics`, {
    headers: { authorization: `Bearer ${apiEnv().METRICS_TOKEN}` },
  });
  const text = await response.text();
  const line = /^boxoffice_webhook_attempts_total\{outcome="succeeded"\} (\d+)$/m.exec(text);
  if (!line) throw new Error(`no attempts counter in /metrics:\n${text.slice(0, 300)}`);
  return Number(line[1]);
}

beforeAll(async () => {
  await receiver.start();
  [a, b] = await Promise.all([startApi(apiEnv()), startApi(apiEnv())]);
  local = await startTestServer();
});

afterAll(async () => {
  await local?.close();
  await stopAll();
  await receiver.stop();
});

describe('webhook delivery', () => {
  it('delivers every change of every type once, signed so the standardwebhooks library verifies it', async () => {
    const tenant = await createTenant();
    const endpoint = await addEndpoint(tenant.key);
    const before = await lastPosition(tenant.organisationId);

    const event = await postEvent(tenant.key, 'Every type');
    const eventId = event.body.data.id as string;
    await request(b.baseUrl, 'PATCH', `/api/v1/events/${eventId}`, {
      key: tenant.key,
      body: { status: 'published' },
    });
    const tier = await request(a.baseUrl, 'POST', '/api/v1/tiers', {
      key: tenant.key,
      body: { event_id: eventId, name: 'Floor', price: 2000 },
    });
    await request(b.baseUrl, 'PATCH', `/api/v1/tiers/${tier.body.data.id}`, {
      key: tenant.key,
      body: { price: 2200 },
    });
    const { order, tickets } = await addOrder(
      tenant.organisationId,
      { id: tier.body.data.id, eventId },
      { tickets: 2 },
    );
    const scan = await request(a.baseUrl, 'POST', '/api/v1/checkins', {
      key: tenant.key,
      body: { ticket_id: tickets[0]!.id },
    });
    expect(scan.status).toBe(201);
    await cancelFixtureOrder(tenant.organisationId, order.id, true);
    const payout = await buildPayout(tenant.organisationId);
    const orm = await getTestOrm();
    await transitionPayout(
      { em: orm.em.fork(), organisationId: tenant.organisationId, livemode: true },
      payout.id,
      'in_transit',
    );

    const records = await changeRecords(tenant.organisationId, before);
    expect(new Set(records.map((r) => r.type))).toEqual(new Set(WEBHOOK_EVENT_TYPES));
    const received = await receiver.receivedAtLeast(endpoint.name, records.length, 20_000);
    await sleep(1000);
    expect(await receiver.received(endpoint.name)).toHaveLength(records.length);

    const events = received.map((delivery) => verify(endpoint.secret, delivery));
    expect(new Set(events.map((e) => e.id)).size).toBe(records.length);
    for (const [i, delivery] of received.entries()) {
      expect(delivery.headers['webhook-id']).toBe(events[i]!.id);
      expect(events[i]!.id).toMatch(/^msg_[0-9A-Za-z]{24}$/);
      expect(delivery.headers['content-type']).toBe('application/json');
    }
    // Each change record came once, with the object exactly as the API renders it.
    const byObject = (list: { type: string; data: Record<string, unknown> }[]) =>
      list.map((item) => JSON.stringify([item.type, item.data])).sort();
    expect(byObject(events.map((e) => ({ type: e.type, data: e.data.object })))).toEqual(
      byObject(records),
    );
    expect(events.find((e) => e.type === 'event.created')!.data.object).toEqual(event.body.data);
    expect(events.find((e) => e.type === 'checkin.created')!.data.object).toEqual(scan.body.data);
  });

  it('sends only the subscribed types', async () => {
    const tenant = await createTenant();
    const endpoint = await addEndpoint(tenant.key, ['tier.created']);
    const event = await postEvent(tenant.key, 'Subscribed');
    await request(a.baseUrl, 'POST', '/api/v1/tiers', {
      key: tenant.key,
      body: { event_id: event.body.data.id, name: 'Balcony', price: 1000 },
    });
    const [delivery] = await receiver.receivedAtLeast(endpoint.name, 1);
    expect(verify(endpoint.secret, delivery!).type).toBe('tier.created');
    await sleep(800);
    expect(await receiver.received(endpoint.name)).toHaveLength(1);
  });

  it("sends an endpoint only its organisation's changes made since it was registered", async () => {
    const [tenant, other] = await Promise.all([createTenant(), createTenant()]);
    await postEvent(tenant.key, 'Before the endpoint');
    const all = await addEndpoint(tenant.key);
    const typed = await addEndpoint(tenant.key, ['event.created']);
    const others = await addEndpoint(other.key, ['event.created']);
    const after = await postEvent(tenant.key, 'After the endpoint');
    await request(b.baseUrl, 'PATCH', `/api/v1/events/${after.body.data.id}`, {
      key: tenant.key,
      body: { status: 'published' },
    });
    await receiver.receivedAtLeast(all.name, 2);
    await receiver.receivedAtLeast(typed.name, 1);
    await sleep(800);
    const names = (endpoint: { name: string; secret: string }) =>
      receiver
        .received(endpoint.name)
        .then((got) =>
          got
            .map((delivery) => verify(endpoint.secret, delivery))
            .map((e) => [e.type, e.data.object.name]),
        );
    // In either order: the update was made on the other instance, and two instances sending to
    // one endpoint at once may cross (docs/api.md, Webhooks › Ordering).
    expect((await names(all)).sort()).toEqual([
      ['event.created', 'After the endpoint'],
      ['event.updated', 'After the endpoint'],
    ]);
    expect(await names(typed)).toEqual([['event.created', 'After the endpoint']]);
    expect(await names(others)).toEqual([]);
  });

  it('with two API instances, delivers each message once, and counts the attempts in /metrics', async () => {
    const { tenant, endpoint } = await subscribedTenant();
    const countedBefore = (await attemptsCounted(a)) + (await attemptsCounted(b));
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        request(i % 2 ? a.baseUrl : b.baseUrl, 'POST', '/api/v1/events', {
          key: tenant.key,
          body: eventInput(`Burst ${i}`),
        }),
      ),
    );
    await receiver.receivedAtLeast(endpoint.name, 40, 20_000);
    await sleep(1000);
    const received = await receiver.received(endpoint.name);
    expect(received).toHaveLength(40);
    const names = received.map(
      (d) => (verify(endpoint.secret, d).data.object as { name: string }).name,
    );
    expect(new Set(names).size).toBe(40);
    expect(new Set(received.map((d) => d.headers['webhook-id'])).size).toBe(40);
    // Counted by the delivery threads, reported to their servers' metrics.
    await until(
      'the attempts counted',
      async () => (await attemptsCounted(a)) + (await attemptsCounted(b)) >= countedBefore + 40,
    );
  });

  it('retries a failed delivery with the same webhook-id: 500, 500, then 200 is three attempts', async () => {
    const { tenant, endpoint } = await subscribedTenant();
    await receiver.plan(endpoint.name, [500, 500]);
    await postEvent(tenant.key, 'Retried');
    const received = await receiver.receivedAtLeast(endpoint.name, 3, 20_000);
    await sleep(1500);
    expect(await receiver.received(endpoint.name)).toHaveLength(3);
    const ids = received.map((d) => d.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    for (const delivery of received) verify(endpoint.secret, delivery);
    // The first attempt's body, made when the message was, and the queue's, composed again from
    // the change record, are the same to the byte.
    expect(new Set(received.map((d) => d.body)).size).toBe(1);
    // Backed off: the retries came later, not at once.
    expect(received[2]!.at - received[0]!.at).toBeGreaterThanOrEqual(1000);
    const attempts = await until('the attempts recorded', async () => {
      const rows = await attemptsOf(ids[0]!);
      return rows.length === 3 && rows;
    });
    expect(attempts.map((row) => [row.outcome, row.status_code])).toEqual([
      ['failed', 500],
      ['failed', 500],
      ['succeeded', 200],
    ]);
    expect(attempts[0]!.error).toBe('HTTP 500');
  });

  it('sends a message to a healthy endpoint at once, without the job queue', async () => {
    const { tenant, endpoint } = await subscribedTenant();
    await postEvent(tenant.key, 'At once');
    const [delivery] = await receiver.receivedAtLeast(endpoint.name, 1);
    const id = delivery!.headers['webhook-id']!;
    const attempts = await until('the attempt recorded', async () => {
      const rows = await attemptsOf(id);
      return rows.length === 1 && rows;
    });
    expect(attempts.map((row) => row.outcome)).toEqual(['succeeded']);
    const orm = await getTestOrm();
    // Written once, delivered, with its one attempt; the round's lease ended with it.
    const [message] = await orm.em
      .fork()
      .execute<{ status: string; attempt_count: number }[]>(
        `select status, attempt_count from webhook_messages where id = ?`,
        [id],
      );
    expect(message).toEqual({ status: 'delivered', attempt_count: 1 });
    const jobs = await orm.em
      .fork()
      .execute(`select id from pgboss.job where data->>'message_id' = ?`, [id]);
    expect(jobs).toEqual([]);
    const change = (await changeRecords(tenant.organisationId)).find(
      (record) => record.type === 'event.created',
    );
    const leases = await orm.em.fork().execute(
      `select id from webhook_fanout_leases
          where (?::xid8, ?::bigint) > (after_transaction_id, after_position)
            and (?::xid8, ?::bigint) <= (through_transaction_id, through_position)`,
      [change!.transaction_id, change!.position, change!.transaction_id, change!.position],
    );
    expect(leases).toEqual([]);
  });

  it('sends again, with the same webhook-id, the messages of a round whose instance never recorded them', async () => {
    const { tenant, endpoint } = await subscribedTenant();
    await postEvent(tenant.key, 'Sent, then forgotten');
    const [first] = await receiver.receivedAtLeast(endpoint.name, 1);
    const id = first!.headers['webhook-id']!;
    await until('its attempt recorded', async () => (await attemptsOf(id)).length === 1);
    // As an instance leaves its round when it crashes after sending and before recording: no
    // message written, and its lease on the change record, now past.
    const orm = await getTestOrm();
    const change = (await changeRecords(tenant.organisationId)).find(
      (record) => record.type === 'event.created',
    );
    await orm.em.fork().execute(`delete from webhook_attempts where message_id = ?`, [id]);
    await orm.em.fork().execute(`delete from webhook_messages where id = ?`, [id]);
    await orm.em.fork().execute(
      `insert into webhook_fanout_leases (after_transaction_id, after_position,
         through_transaction_id, through_position, first_change_at, expires_at)
       values (?::xid8, ?::bigint - 1, ?::xid8, ?::bigint, now(), now() - interval '1 second')`,
      [change!.transaction_id, change!.position, change!.transaction_id, change!.position],
    );
    const [, again] = await receiver.receivedAtLeast(endpoint.name, 2);
    expect(again!.headers['webhook-id']).toBe(id);
    expect(again!.body).toBe(first!.body);
    expect(verify(endpoint.secret, again!).id).toBe(id);
    const [message] = await until('recorded as delivered', async () => {
      const rows = await orm.em
        .fork()
        .execute<{ status: string }[]>(`select status from webhook_messages where id = ?`, [id]);
      return rows[0]?.status === 'delivered' && rows;
    });
    expect(message).toEqual({ status: 'delivered' });
    await sleep(500);
    expect(await receiver.received(endpoint.name)).toHaveLength(2);
    expect(
      await orm.em.fork().execute(`select id from webhook_fanout_leases where expires_at < now()`),
    ).toEqual([]);
  });

  it('delivers everything to a receiver that was down, once it is back', async () => {
    const { tenant, endpoint } = await subscribedTenant();
    const port = receiver.port;
    await receiver.stop();
    try {
      for (let i = 0; i < 5; i++) {
        await postEvent(tenant.key, `While down ${i}`);
      }
      const orm = await getTestOrm();
      await until('failed attempts while the receiver is down', async () => {
        const [row] = await orm.em
          .fork()
          .execute<{ n: string }[]>(
            `select count(distinct a.message_id) as n from webhook_attempts a where a.endpoint_id = ? and a.outcome = 'failed'`,
            [endpoint.id],
          );
        return Number(row?.n) >= 5;
      });
    } finally {
      await receiver.start(port);
    }
    const received = await receiver.receivedAtLeast(endpoint.name, 5, 30_000);
    await sleep(1000);
    expect(await receiver.received(endpoint.name)).toHaveLength(5);
    expect(new Set(received.map((d) => d.headers['webhook-id'])).size).toBe(5);
  });

  it('signs with both secrets during a rotation, and with the new one only after it', async () => {
    const { tenant, endpoint } = await subscribedTenant();
    const orm = await getTestOrm();
    const ctx = { em: orm.em.fork(), organisationId: tenant.organisationId, livemode: true };
    const rotated = await rotateSecret(ctx, endpoint.id);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(endpoint.secret);

    await postEvent(tenant.key, 'During the overlap');
    const [during] = await receiver.receivedAtLeast(endpoint.name, 1);
    expect(during!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(endpoint.secret, during!).type).toBe('event.created');
    expect(verify(rotated.secret, during!).type).toBe('event.created');

    // The overlap is over: the old secret no longer signs.
    await setEndpoint(endpoint.id, `previous_secret_expires_at = now() - interval '1 second'`);
    await postEvent(tenant.key, 'After the overlap');
    const after = await until('the second delivery', async () => {
      const got = await receiver.received(endpoint.name);
      return got.length >= 2 && got[1];
    });
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verify(rotated.secret, after).type).toBe('event.created');
    expect(() => verify(endpoint.secret, after)).toThrow();
  });

  it('disables an endpoint that has failed for three days', async () => {
    const { tenant, endpoint } = await subscribedTenant();
    await receiver.plan(endpoint.name, [503, 503, 503, 503, 503, 503]);
    await setEndpoint(endpoint.id, `failing_since = now() - interval '73 hours'`);
    await postEvent(tenant.key, 'Failing');
    const disabled = await until('the endpoint disabled', async () => {
      const got = await request(a.baseUrl, 'GET', `/api/v1/webhook_endpoints/${endpoint.id}`, {
        key: tenant.key,
      });
      return got.body.data.status === 'disabled' && got.body.data;
    });
    expect(disabled.disabled_reason).toMatch(/failed for 72 hours/);
    // Nothing more is made for it.
    const deliveries = (await receiver.received(endpoint.name)).length;
    await postEvent(tenant.key, 'After disabling');
    await sleep(1500);
    expect((await receiver.received(endpoint.name)).length).toBe(deliveries);
  });

  it('keeps no message or attempt of an endpoint deleted while a delivery to it was under way', async () => {
    const { tenant, endpoint } = await subscribedTenant();
    await receiver.plan(endpoint.name, [{ status: 200, delayMs: 1500 }]);
    await postEvent(tenant.key, 'Deleted meanwhile');
    await until('the delivery under way', async () => {
      return (await receiver.received(endpoint.name)).length === 1;
    });
    const deleted = await request(a.baseUrl, 'DELETE', `/api/v1/webhook_endpoints/${endpoint.id}`, {
      key: tenant.key,
    });
    expect(deleted.status).toBe(200);
    // The answer comes, and the attempt is recorded or not: nothing of the endpoint is left.
    await sleep(2500);
    const orm = await getTestOrm();
    const rows = await orm.em.fork().execute(
      `select id from webhook_messages where endpoint_id = ?
         union all select message_id from webhook_attempts where endpoint_id = ?`,
      [endpoint.id, endpoint.id],
    );
    expect(rows).toEqual([]);
  });
});

describe('webhook URLs', () => {
  it('refuses private, loopback and link-local addresses and plain http unless the operator allows them', async () => {
    const tenant = await createTenant();
    for (const url of [
      'https://127.0.0.1/hooks',
      'https://localhost/hooks',
      'https://10.1.2.3/hooks',
      'https://192.168.0.10/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hooks',
      'https://[fd00::1]/hooks',
      'https://[::ffff:127.0.0.1]/hooks',
      'http://203.0.114.1/hooks',
      'https://user:pass@example.com/hooks',
    ]) {
      const refused = await call(local!, 'POST', '/api/v1/webhook_endpoints', {
        key: tenant.key,
        body: { url },
      });
      expect(refused.status, url).toBe(422);
      expect(refused.body.code).toBe('invalid_webhook_url');
      expect(refused.body.error).toMatch(/^url must /);
    }
    const list = await call(local!, 'GET', '/api/v1/webhook_endpoints', { key: tenant.key });
    expect(list.body).toMatchObject({ data: [], total: 0 });
  });

  it('refuses, when connecting, a name that resolves to a private address', async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      guardedLookup({ allowHttp: true, allowPrivate: false })('localhost', {}, (e) => resolve(e)),
    );
    expect(error?.code).toBe('EADDRNOTPUBLIC');
    const result = await deliver(
      receiver.url('never'),
      '{}',
      {},
      {
        timeoutMs: 2000,
        allowHttp: true,
        allowPrivate: false,
      },
    );
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/non-public address: 127\.0\.0\.1 is loopback/);
    expect(await receiver.received('never')).toEqual([]);
  });

  it('does not follow redirects', async () => {
    await receiver.plan('moved', [302]);
    const result = await deliver(
      receiver.url('moved'),
      '{}',
      {},
      {
        timeoutMs: 2000,
        allowHttp: true,
        allowPrivate: true,
      },
    );
    expect(result).toMatchObject({ ok: false, statusCode: 302 });
    expect(result.error).toMatch(/not followed/);
    expect(await receiver.received('moved')).toHaveLength(1);
  });
  // Last: it stops both instances.
  it('hands the messages waiting to be sent to the queue when stopped; a new instance sends them', async () => {
    const { tenant, endpoint } = await subscribedTenant();
    // Every answer comes late. Each instance sends one message at a time to an endpoint, and
    // either may have made any of the five, so at the stop at most two are under way and the
    // others are still waiting, whichever instance holds them.
    await receiver.plan(
      endpoint.name,
      Array.from({ length: 5 }, () => ({ status: 200, delayMs: 1500 })),
    );
    for (let i = 0; i < 5; i++) {
      await postEvent(tenant.key, `Before the stop ${i}`);
    }
    const orm = await getTestOrm();
    const messageIds = async () =>
      (
        await orm.em
          .fork()
          .execute<{ id: string }[]>(
            `select id from webhook_messages where endpoint_id = ? order by created_at`,
            [endpoint.id],
          )
      ).map((row) => row.id);
    // The five made (in memory: a message sent at once is written with its first attempt), and
    // the first one sent.
    const last = (await changeRecords(tenant.organisationId)).at(-1)!;
    await until('the fan-out past the five changes', async () => {
      const [state] = await orm.em.fork().execute<{ past: boolean }[]>(
        `select (transaction_id, position) >= (?::xid8, ?::bigint) as past
             from webhook_fanout_state`,
        [last.transaction_id, last.position],
      );
      return state!.past;
    });
    await receiver.receivedAtLeast(endpoint.name, 1);

    const [exitA, exitB] = await Promise.all([a.stop('SIGTERM'), b.stop('SIGTERM')]);
    expect(exitA.code, a.output()).toBe(0);
    expect(exitB.code, b.output()).toBe(0);
    // All five written at the stop: those sent with their attempt, the others for the queue.
    const ids = await messageIds();
    expect(ids).toHaveLength(5);
    const queued = await orm.em
      .fork()
      .execute<{ id: string }[]>(
        `select data->>'message_id' as id from pgboss.job where data->>'message_id' in (?)`,
        [ids],
      );
    expect(queued.length, 'messages handed to the queue at the stop').toBeGreaterThan(0);

    const c = await startApi(apiEnv());
    const received = await until(
      'all five, the rest sent by the new instance',
      async () => {
        const got = await receiver.received(endpoint.name);
        return new Set(got.map((d) => d.headers['webhook-id'])).size >= 5 && got;
      },
      { timeoutMs: 20_000 },
    );
    await sleep(1000);
    expect(await receiver.received(endpoint.name)).toHaveLength(5);
    expect(new Set(received.map((d) => d.headers['webhook-id']))).toEqual(new Set(ids));
    await c.stop('SIGTERM');
  });
});
