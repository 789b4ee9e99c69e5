import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretKey } from '../../src/core/secret-box';
import { createOrm, migrateDatabase, type Orm } from '../../src/db/orm';
import { generateKey } from '../../src/modules/api-keys/api-key.service';
import { entities } from '../../src/modules/entities';
import { createEvent } from '../../src/modules/events/event.service';
import { createOrganisation } from '../../src/modules/organisations/organisation.service';
import type { WebhookEngine } from '../../src/modules/webhooks/webhook-engine';
import { rotateSecret, updateEndpoint } from '../../src/modules/webhooks/webhook-endpoint.service';
import {
  resealStoredSecrets,
  revealSecret,
} from '../../src/modules/webhooks/webhook-secret.service';
import { eventInput } from '../fixtures';
import { createTenantIn, request, startApi, until } from '../scale/harness';
import {
  call,
  createScratchDatabase,
  localWebhookEngine,
  startTestServer,
  type TestServer,
} from '../setup';
import { deliveringApiEnv, Receiver, type Delivery } from './harness';

/**
 * Webhook signing secrets at rest: sealed in their rows and in the stored answer of their
 * creation, opened for replays, the dashboard and signing, and re-encrypted by the operator CLI
 * when a key is retired. A database of its own: re-encrypting touches every row, and other files'
 * servers seal with the development key.
 */

const OLD: SecretKey = { id: 'old', key: randomBytes(32) };
const NEW: SecretKey = { id: 'new', key: randomBytes(32) };
const OTHER: SecretKey = { id: 'other', key: randomBytes(32) };
const setting = (...keys: SecretKey[]) =>
  keys.map(({ id, key }) => `${id}:${Buffer.from(key).toString('hex')}`).join(',');

const anyAddress = { allowHttp: true, allowPrivate: true };
const receiver = new Receiver();
let database: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
const orms: Orm[] = [];
const servers: TestServer[] = [];
const engines: WebhookEngine[] = [];

async function ormWith(keys?: SecretKey[]): Promise<Orm> {
  const orm = await createOrm({ databaseUrl: database!.url, entities, secretKeys: keys });
  orms.push(orm);
  return orm;
}

async function serverWith(keys?: SecretKey[]): Promise<TestServer> {
  const server = await startTestServer({ orm: await ormWith(keys) });
  servers.push(server);
  return server;
}

/** Runs the operator CLI from source on the scratch database, with `SECRETS_ENCRYPTION_KEYS`. */
function cli(keys: SecretKey[], ...args: string[]): Promise<{ code: number; out: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    DATABASE_URL: database!.url,
    SECRETS_ENCRYPTION_KEYS: setting(...keys),
  };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=@boxoffice/source', '--import', 'tsx', 'src/cli.ts', ...args],
      { cwd: path.resolve(import.meta.dirname, '../..'), env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, out: code === 0 ? stdout : stderr });
      },
    );
  });
}

const stored = async (orm: Orm, id: string) =>
  (
    await orm.em
      .fork()
      .execute<{ secret: string; previous_secret: string | null }[]>(
        'select secret, previous_secret from webhook_endpoints where id = ?',
        [id],
      )
  )[0]!;

const storedAnswer = async (orm: Orm, apiKeyId: string, key: string) =>
  (
    await orm.em
      .fork()
      .execute<{ body: string }[]>(
        'select response_body::text as body from idempotency_records where api_key_id = ? and key = ?',
        [apiKeyId, key],
      )
  )[0]?.body;

const verify = (secret: string, delivery: Delivery) =>
  new Webhook(secret).verify(delivery.body, delivery.headers) as { type: string };

beforeAll(async () => {
  database = await createScratchDatabase('boxoffice_secrets');
  await migrateDatabase(database.url);
  await receiver.start();
});

afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.stop(2000)));
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all(orms.map((orm) => orm.close()));
  await receiver.stop();
  await database?.drop();
});

describe('webhook signing secrets at rest', { timeout: 120_000 }, () => {
  it('are sealed, replayed, re-encrypted under a new key, and still sign', async () => {
    const withOld = await serverWith([OLD]);
    const em = withOld.orm.em.fork();
    const organisation = await createOrganisation(em, { name: 'Sealed Hall', plan: 'pro' });
    const { apiKey, key } = await generateKey(em, {
      organisationId: organisation.id,
      name: 'secrets',
      scopes: ['read', 'write'],
    });
    const create = (server: TestServer) =>
      call(server, 'POST', '/api/v1/webhook_endpoints', {
        key,
        headers: { 'idempotency-key': 'create-sealed' },
        body: { url: 'https://hooks.example.com/sealed' },
      });

    // Created under the old key: the answer shows the secret, nothing stored does.
    const created = await create(withOld);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, secret } = created.body.data as { id: string; secret: string };
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const row = await stored(withOld.orm, id);
    expect(row.secret).toMatch(/^v1:old:/);
    expect(row.secret).not.toContain('whsec_');
    expect(row.secret).not.toContain(secret.slice(6, 20));
    const answer = await storedAnswer(withOld.orm, apiKey.id, 'create-sealed');
    expect(answer).toMatch(/^"v1:old:/);
    expect(answer).not.toContain('whsec_');
    expect(answer).not.toContain(secret.slice(6, 20));

    // A replay returns the same secret.
    const replayed = await create(withOld);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(created.body);

    // The new key alone opens neither, and says which key is missing.
    const withNew = await serverWith([NEW]);
    const tenantNew = {
      em: withNew.orm.em.fork(),
      organisationId: organisation.id,
      livemode: true,
    };
    await expect(revealSecret(tenantNew, id)).rejects.toThrow(
      "the stored secret is sealed under key 'old', which SECRETS_ENCRYPTION_KEYS does not list",
    );
    const refused = await create(withNew);
    expect(refused.status).toBe(500);
    expect(JSON.stringify(refused.body)).not.toContain('whsec_');
    const notYet = await cli([NEW], 'secrets', 'reencrypt');
    expect(notYet.code).toBe(1);
    expect(JSON.parse(notYet.out).error).toContain(
      `2 stored secrets are sealed under keys SECRETS_ENCRYPTION_KEYS does not list (endpoints: ${id})`,
    );
    expect((await stored(withOld.orm, id)).secret).toBe(row.secret);

    // The new key first, the old one after it: the command re-encrypts both under the new one.
    const reencrypted = await cli([NEW, OLD], 'secrets', 'reencrypt');
    expect(reencrypted.code, reencrypted.out).toBe(0);
    expect(JSON.parse(reencrypted.out)).toEqual({
      key: 'new',
      endpoints: { resealed: 1, unreadable: [] },
      idempotency_answers: { resealed: 1, unreadable: 0 },
    });
    expect((await stored(withOld.orm, id)).secret).toMatch(/^v1:new:/);
    expect(await storedAnswer(withOld.orm, apiKey.id, 'create-sealed')).toMatch(/^"v1:new:/);
    // Nothing left to do.
    expect(JSON.parse((await cli([NEW], 'secrets', 'reencrypt')).out)).toMatchObject({
      endpoints: { resealed: 0 },
      idempotency_answers: { resealed: 0 },
    });

    // The old key removed: the replay, the dashboard's view and the signatures use the new one.
    const replayedNew = await create(withNew);
    expect(replayedNew.status).toBe(201);
    expect(replayedNew.body).toEqual(created.body);
    expect((await revealSecret(tenantNew, id)).secret).toBe(secret);

    await updateEndpoint(tenantNew, id, { url: receiver.url('sealed') }, anyAddress);
    const engine = localWebhookEngine(database!.url, { secretKeys: [NEW] });
    engines.push(engine);
    await engine.start();
    await createEvent(
      { em: withNew.orm.em.fork(), organisationId: organisation.id, livemode: true },
      eventInput('Signed with an opened secret'),
    );
    const [delivery] = await receiver.receivedAtLeast('sealed', 1);
    expect(verify(secret, delivery!).type).toBe('event.created');

    // A rotation stores the new secret sealed, and both sign during the overlap.
    const rotated = await rotateSecret(tenantNew, id);
    expect(rotated.secret).toMatch(/^whsec_/);
    const afterRotation = await stored(withNew.orm, id);
    expect(afterRotation.secret).toMatch(/^v1:new:/);
    expect(afterRotation.previous_secret).toMatch(/^v1:new:/);
    expect(JSON.stringify(afterRotation)).not.toContain('whsec_');
    await createEvent(
      { em: withNew.orm.em.fork(), organisationId: organisation.id, livemode: true },
      eventInput('Signed twice'),
    );
    const [, during] = await receiver.receivedAtLeast('sealed', 2);
    expect(verify(rotated.secret, during!).type).toBe('event.created');
    expect(verify(secret, during!).type).toBe('event.created');
    await engine.stop(2000);
  });

  it('sends nothing, and says why, when the key of a secret is missing', async () => {
    const withNew = await serverWith([NEW]);
    const em = withNew.orm.em.fork();
    const organisation = await createOrganisation(em, { name: 'Keyless Hall', plan: 'pro' });
    const tenant = { em, organisationId: organisation.id, livemode: true };
    const { createEndpoint } = await import('../../src/modules/webhooks/webhook-endpoint.service');
    const endpoint = await createEndpoint(tenant, { url: receiver.url('keyless') }, anyAddress);
    expect((await stored(withNew.orm, endpoint.id)).secret).toMatch(/^v1:new:/);

    const warnings: { fields: object; message: string }[] = [];
    const engine = localWebhookEngine(database!.url, {
      secretKeys: [OTHER],
      logger: { warn: (fields, message) => warnings.push({ fields, message }), debug: () => {} },
    });
    engines.push(engine);
    await engine.start();
    await createEvent(
      { em: withNew.orm.em.fork(), organisationId: organisation.id, livemode: true },
      eventInput('Not signed with a wrong key'),
    );
    const warning = await until('a warning', () =>
      warnings.find((entry) => entry.message === 'webhook not sent'),
    );
    expect(String((warning.fields as { err: Error }).err.message)).toBe(
      "the stored secret is sealed under key 'new', which SECRETS_ENCRYPTION_KEYS does not list",
    );
    expect(await receiver.received('keyless')).toEqual([]);
    await engine.stop(2000);
  });

  it('are shown by the dashboard, and rotated there, sealed', async () => {
    const server = await serverWith([NEW]);
    let cookie = '';
    let csrf = '';
    const visit = async (method: string, route: string, body?: unknown) => {
      const result = await call(server, method, `/dashboard/api${route}`, {
        body,
        headers: { cookie, ...(method === 'GET' ? {} : { 'x-csrf-token': csrf }) },
      });
      const setCookie = result.headers.get('set-cookie');
      if (setCookie) cookie = setCookie.split(';')[0]!;
      if (result.body?.csrf_token) csrf = result.body.csrf_token as string;
      return result;
    };
    const signUp = await visit('POST', '/signup', {
      organisation_name: 'Dashboard Hall',
      email: `owner${Date.now()}@example.com`,
      password: 'a long passphrase',
    });
    expect(signUp.status, JSON.stringify(signUp.body)).toBe(201);
    const created = await visit('POST', '/webhooks', { url: 'https://hooks.example.com/dash' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, secret } = created.body.data as { id: string; secret: string };
    expect(secret).toMatch(/^whsec_/);
    expect((await stored(server.orm, id)).secret).toMatch(/^v1:new:/);

    const shown = await visit('GET', `/webhooks/${id}/secret`);
    expect(shown.status).toBe(200);
    expect(shown.body.data).toEqual({ secret, previous_secret_expires_at: null });

    const rotated = await visit('POST', `/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const next = (rotated.body.data as { secret: string }).secret;
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(secret);
    expect((await visit('GET', `/webhooks/${id}/secret`)).body.data.secret).toBe(next);
    const row = await stored(server.orm, id);
    expect(row.secret).toMatch(/^v1:new:/);
    expect(row.previous_secret).toMatch(/^v1:new:/);
  });

  it('are sealed under the configured key by a server process, which seals plain ones at start and signs in its delivery thread', async () => {
    const orm = await ormWith([NEW]);
    const tenant = await createTenantIn(orm, ['read', 'write']);
    const { createEndpoint } = await import('../../src/modules/webhooks/webhook-endpoint.service');
    // As a server before encryption wrote it.
    const legacy = await createEndpoint(
      { em: orm.em.fork(), organisationId: tenant.organisationId, livemode: true },
      { url: receiver.url('process-legacy'), events: ['event.created'] },
      anyAddress,
    );
    await orm.em
      .fork()
      .execute('update webhook_endpoints set secret = ? where id = ?', [legacy.secret, legacy.id]);

    const api = await startApi({
      ...deliveringApiEnv(database!.url),
      SECRETS_ENCRYPTION_KEYS: setting(OTHER, NEW),
    });
    try {
      await until('the plain secret sealed at start', async () =>
        (await stored(orm, legacy.id)).secret.startsWith('v1:other:'),
      );
      const { id, secret } = await receiver.subscribe(api.baseUrl, tenant.key, 'process', [
        'event.created',
      ]);
      expect((await stored(orm, id)).secret).toMatch(/^v1:other:/);
      const event = await request(api.baseUrl, 'POST', '/api/v1/events', {
        key: tenant.key,
        body: eventInput('Signed in the thread'),
      });
      expect(event.status).toBe(201);
      for (const [name, key] of [
        ['process', secret],
        ['process-legacy', legacy.secret],
      ] as const) {
        const [delivery] = await receiver.receivedAtLeast(name, 1);
        expect(verify(key, delivery!).type).toBe('event.created');
      }
    } finally {
      await api.stop('SIGTERM');
    }
  });

  it('seals at start the secrets written in plain text before encryption', async () => {
    const orm = await ormWith([NEW]);
    const em = orm.em.fork();
    const organisation = await createOrganisation(em, { name: 'Legacy Hall', plan: 'pro' });
    const { createEndpoint } = await import('../../src/modules/webhooks/webhook-endpoint.service');
    const endpoint = await createEndpoint(
      { em, organisationId: organisation.id, livemode: true },
      { url: 'https://hooks.example.com/legacy' },
      anyAddress,
    );
    // As a server before encryption wrote them: the row, and the answer of the creation.
    const plain = endpoint.secret;
    await em.execute('update webhook_endpoints set secret = ? where id = ?', [plain, endpoint.id]);
    const { apiKey } = await generateKey(em, {
      organisationId: organisation.id,
      name: 'legacy',
      scopes: ['write'],
    });
    const body = { data: { id: endpoint.id, secret: plain } };
    await em.execute(
      `insert into idempotency_records (api_key_id, key, fingerprint, state, response_status,
         response_body, locked_until, expires_at, created_at)
       values (?, 'legacy', 'f', 'done', 201, ?::jsonb, now(), now() + interval '1 day', now())`,
      [apiKey.id, JSON.stringify(body)],
    );

    const report = await resealStoredSecrets(orm.em.fork(), 'legacy');
    expect(report.endpoints.resealed).toBe(1);
    expect(report.idempotency_answers.resealed).toBe(1);
    expect((await stored(orm, endpoint.id)).secret).toMatch(/^v1:new:/);
    expect(await storedAnswer(orm, apiKey.id, 'legacy')).toMatch(/^"v1:new:/);
    const tenant = { em: orm.em.fork(), organisationId: organisation.id, livemode: true };
    expect((await revealSecret(tenant, endpoint.id)).secret).toBe(plain);
  });
});
