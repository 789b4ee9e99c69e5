import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids';
import { call, createTenant, getTestOrm, startTestServer, type TestServer } from '../setup';
import { endpointCount } from './harness';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const hook = 'https://hooks.example.com/boxoffice';

describe('/webhook_endpoints', () => {
  it('creates (showing the secret once), lists, gets, updates and deletes', async () => {
    const tenant = await createTenant();
    const created = await call(server, 'POST', '/api/v1/webhook_endpoints', {
      key: tenant.key,
      body: { url: hook, events: ['checkin.created', 'event.created'], description: 'Door' },
    });
    expect(created.status).toBe(201);
    const endpoint = created.body.data;
    expect(endpoint).toMatchObject({
      url: hook,
      description: 'Door',
      // In the canonical order of the types, each once.
      events: ['event.created', 'checkin.created'],
      status: 'enabled',
      disabled_reason: null,
    });
    expect(endpoint.id).toMatch(/^we_[0-9A-Za-z]{24}$/);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const got = await call(server, 'GET', `/api/v1/webhook_endpoints/${endpoint.id}`, {
      key: tenant.key,
    });
    const { secret: _secret, ...shown } = endpoint;
    expect(got.body.data).toEqual(shown);
    const list = await call(server, 'GET', '/api/v1/webhook_endpoints', { key: tenant.key });
    expect(list.body).toEqual({ data: [shown], total: 1, page: 1, limit: 20 });

    const disabled = await call(server, 'PATCH', `/api/v1/webhook_endpoints/${endpoint.id}`, {
      key: tenant.key,
      body: { status: 'disabled', events: ['*'] },
    });
    expect(disabled.body.data).toMatchObject({
      status: 'disabled',
      disabled_reason: 'disabled by request',
      events: ['*'],
    });
    const enabled = await call(server, 'PATCH', `/api/v1/webhook_endpoints/${endpoint.id}`, {
      key: tenant.key,
      body: { status: 'enabled' },
    });
    expect(enabled.body.data).toMatchObject({ status: 'enabled', disabled_reason: null });

    const deleted = await call(server, 'DELETE', `/api/v1/webhook_endpoints/${endpoint.id}`, {
      key: tenant.key,
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { id: endpoint.id, deleted: true } });
    const gone = await call(server, 'GET', `/api/v1/webhook_endpoints/${endpoint.id}`, {
      key: tenant.key,
    });
    expect(gone.status).toBe(404);
    expect(gone.body.error).toBe('webhook endpoint not found');
  });

  it('needs the write scope, and shows no other organisation’s endpoints', async () => {
    const owner = await createTenant();
    const reader = await createTenant(['read', 'checkins:write']);
    const refused = await call(server, 'GET', '/api/v1/webhook_endpoints', { key: reader.key });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("This API key lacks the 'write' scope");
    const created = await call(server, 'POST', '/api/v1/webhook_endpoints', {
      key: owner.key,
      body: { url: hook },
    });
    expect(created.body.data.events).toEqual(['*']);
    const stranger = await createTenant();
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const answer = await call(
        server,
        method,
        `/api/v1/webhook_endpoints/${created.body.data.id}`,
        {
          key: stranger.key,
          ...(method === 'PATCH' ? { body: { description: 'mine now' } } : {}),
        },
      );
      expect(answer.status, method).toBe(404);
    }
  });

  it('refuses bad input with a clear error and changes nothing', async () => {
    const tenant = await createTenant();
    const cases: [unknown, number, RegExp][] = [
      [{}, 400, /url/],
      [{ url: hook, events: ['ticket.sold'] }, 400, /events/],
      [{ url: hook, events: [] }, 400, /events/],
      [{ url: hook, secret: 'whsec_mine' }, 400, /secret/],
      [{ url: 'not a url' }, 422, /^url must be an absolute URL/],
      [{ url: 'ftp://example.com/x' }, 422, /^url must use https/],
    ];
    for (const [body, status, message] of cases) {
      const answer = await call(server, 'POST', '/api/v1/webhook_endpoints', {
        key: tenant.key,
        body,
      });
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.error).toMatch(message);
    }
    expect(await endpointCount(tenant.organisationId)).toBe(0);
  });
});

describe('webhook messages', () => {
  it('are purged with their attempts after their retention, and the oldest waiting one is measured', async () => {
    const {
      purgeWebhookMessages,
      oldestUndeliveredAgeSeconds,
      sendTestEvent,
      WEBHOOK_RETENTION_DAYS,
    } = await import('../../src/modules/webhooks/webhook-message.service');
    const tenant = await createTenant();
    const created = await call(server, 'POST', '/api/v1/webhook_endpoints', {
      key: tenant.key,
      body: { url: hook },
    });
    const orm = await getTestOrm();
    const ctx = { em: orm.em.fork(), organisationId: tenant.organisationId, livemode: true };
    const made = await sendTestEvent(ctx, created.body.data.id);
    const recent = await sendTestEvent(ctx, created.body.data.id);
    // Made a day past the retention: its id carries the time it was made.
    const old = newId(
      'webhookMessage',
      new Date(Date.now() - (WEBHOOK_RETENTION_DAYS + 1) * 86_400_000),
    );
    const em = orm.em.fork();
    await em.execute(
      `update webhook_messages set id = ?, created_at = now() - make_interval(days => ?), queued = true where id = ?`,
      [old, WEBHOOK_RETENTION_DAYS + 1, made],
    );
    await em.execute(`update webhook_messages set queued = true where id = ?`, [recent]);
    for (const id of [old, recent]) {
      await em.execute(
        `insert into webhook_attempts (message_id, endpoint_id, attempted_at, outcome, status_code, duration_ms)
         values (?, ?, now(), 'failed', 500, 3)`,
        [id, created.body.data.id],
      );
    }
    expect(await oldestUndeliveredAgeSeconds(em)).toBeGreaterThan(WEBHOOK_RETENTION_DAYS * 86_400);
    expect(await purgeWebhookMessages(em)).toBeGreaterThanOrEqual(1);
    const left = await em.execute<{ id: string }[]>(
      `select id from webhook_messages where endpoint_id = ?`,
      [created.body.data.id],
    );
    const attempts = await em.execute<{ message_id: string }[]>(
      `select message_id from webhook_attempts where endpoint_id = ?`,
      [created.body.data.id],
    );
    expect(attempts.map((row) => row.message_id)).toEqual([recent]);
    expect(left.map((row) => row.id)).toEqual([recent]);
  });

  it('waiting in a replica for their first attempt (under its lease) count as undelivered', async () => {
    const { oldestUndeliveredAgeSeconds, WEBHOOK_RETENTION_DAYS } =
      await import('../../src/modules/webhooks/webhook-message.service');
    const em = (await getTestOrm()).em.fork();
    // Older than any message kept: the age can only come from the lease. Not yet expired, so no
    // instance recovers it meanwhile.
    const days = WEBHOOK_RETENTION_DAYS + 10;
    const [lease] = await em.execute<{ id: string }[]>(
      `insert into webhook_fanout_leases (after_transaction_id, after_position,
         through_transaction_id, through_position, first_change_at, expires_at)
       values ('0', 0, '0', 0, now() - make_interval(days => ?), now() + interval '1 hour')
       returning id::text`,
      [days],
    );
    try {
      expect(await oldestUndeliveredAgeSeconds(em)).toBeGreaterThanOrEqual(days * 86_400);
    } finally {
      await em.execute(`delete from webhook_fanout_leases where id = ?`, [lease!.id]);
    }
    expect(await oldestUndeliveredAgeSeconds(em)).toBeLessThan(days * 86_400);
  });

  it('go with their endpoint: deleting it deletes its messages and their attempts', async () => {
    const { sendTestEvent } = await import('../../src/modules/webhooks/webhook-message.service');
    const tenant = await createTenant();
    const [kept, deleted] = await Promise.all(
      [0, 1].map(
        async () =>
          (
            await call(server, 'POST', '/api/v1/webhook_endpoints', {
              key: tenant.key,
              body: { url: hook },
            })
          ).body.data.id as string,
      ),
    );
    const orm = await getTestOrm();
    const ctx = { em: orm.em.fork(), organisationId: tenant.organisationId, livemode: true };
    const em = orm.em.fork();
    for (const endpointId of [kept!, deleted!]) {
      const messageId = await sendTestEvent(ctx, endpointId);
      await em.execute(
        `insert into webhook_attempts (message_id, endpoint_id, attempted_at, outcome, status_code, duration_ms)
         values (?, ?, now(), 'failed', 500, 3)`,
        [messageId, endpointId],
      );
    }
    const removed = await call(server, 'DELETE', `/api/v1/webhook_endpoints/${deleted}`, {
      key: tenant.key,
    });
    expect(removed.status).toBe(200);
    const left = async (table: 'webhook_messages' | 'webhook_attempts') =>
      (
        await em.execute<{ endpoint_id: string }[]>(
          `select endpoint_id from ${table} where endpoint_id in (?, ?)`,
          [kept, deleted],
        )
      ).map((row) => row.endpoint_id);
    expect(await left('webhook_messages')).toEqual([kept]);
    expect(await left('webhook_attempts')).toEqual([kept]);
    await expect(sendTestEvent(ctx, deleted!)).rejects.toThrow('webhook endpoint not found');
  });
});
