import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Orm } from '../../src/db/orm';
import { eventInput } from '../fixtures';
import {
  createTenantIn,
  request,
  startApi,
  stopAll,
  until,
  type ApiProcess,
} from '../scale/harness';
import { createMigratedDatabase, createTenant, type MigratedDatabase } from '../setup';
import { Receiver } from './harness';

/**
 * A receiver on this machine (plain http, loopback), as a developer tries one: accepted and
 * delivered to on `pnpm start`'s embedded PostgreSQL and wherever the settings allow it; refused
 * elsewhere, the refusal naming the setting.
 */

const receiver = new Receiver();
beforeAll(() => receiver.start());
afterAll(async () => {
  await stopAll();
  await receiver.stop();
});

const eventBody = eventInput('Local receiver');

/** An endpoint for `url` made with `key`, an event made, and the delivery the receiver got. */
async function deliveredTo(api: ApiProcess, key: string, name: string) {
  await receiver.subscribe(api.baseUrl, key, name, ['event.created']);
  const event = await request(api.baseUrl, 'POST', '/api/v1/events', { key, body: eventBody });
  expect(event.status).toBe(201);
  const [delivery] = await receiver.receivedAtLeast(name, 1, 20_000);
  return JSON.parse(delivery!.body) as { type: string; data: { object: { id: string } } };
}

describe('webhook receivers on this machine', () => {
  it('are accepted and delivered to on the embedded PostgreSQL of `pnpm start`, which says so', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'boxoffice-local-webhooks-'));
    // As root, PostgreSQL runs as its own user, which must be able to reach its data.
    await chmod(dir, 0o755);
    try {
      const api = await startApi({
        DATA_DIR: dir,
        NODE_ENV: 'development',
        WEBHOOK_WORKER: 'in-process',
      });
      const banner = await until('the banner', () =>
        api.output().includes('Try it:') ? api.output() : false,
      );
      expect(banner).toMatch(
        /^ {2}Webhooks: +http:\/\/ and loopback URLs are accepted here \(local development only\)$/m,
      );
      const demo = JSON.parse(await readFile(path.join(dir, 'demo.json'), 'utf8')) as {
        api_key: string;
        test_api_key: string;
      };
      // The test key beside the demo key, on the demo organisation's test data.
      expect(banner).toContain(`  Test API key: ${demo.test_api_key}  (test data`);
      expect(demo.test_api_key).toMatch(/^bxo_test_[0-9A-Za-z]{40}$/);
      const sample = await request(api.baseUrl, 'GET', '/api/v1/events?limit=1', {
        key: demo.test_api_key,
      });
      expect(sample.status).toBe(200);
      expect(sample.body.data).toEqual([expect.objectContaining({ livemode: false })]);
      const event = await deliveredTo(api, demo.api_key, 'embedded');
      expect(event.type).toBe('event.created');
      expect((await api.stop('SIGTERM')).code, api.output()).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('are refused elsewhere, the refusal naming the setting that allows them', async () => {
    const api = await startApi({ DATABASE_URL: inject('databaseUrl') });
    const tenant = await createTenant();
    const cases: [string, string][] = [
      [receiver.url('plain'), 'WEBHOOK_ALLOW_HTTP=true'],
      [`https://127.0.0.1:${receiver.port}/hooks/loopback`, 'WEBHOOK_ALLOW_PRIVATE_URLS=true'],
      ['https://localhost/hooks', 'WEBHOOK_ALLOW_PRIVATE_URLS=true'],
    ];
    for (const [url, setting] of cases) {
      const refused = await request(api.baseUrl, 'POST', '/api/v1/webhook_endpoints', {
        key: tenant.key,
        body: { url },
      });
      expect(refused.status, url).toBe(422);
      expect(refused.body.code).toBe('invalid_webhook_url');
      expect(refused.body.error).toContain(setting);
    }
    await api.stop('SIGTERM');
  });

  describe('with WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE_URLS', () => {
    // A database of its own: the run's shared one is watched by the delivery suite's instances.
    let database: MigratedDatabase | undefined;
    let orm: Orm | undefined;
    beforeAll(async () => {
      database = await createMigratedDatabase('boxoffice_local_webhooks');
      orm = database.orm;
    });
    afterAll(async () => {
      await stopAll();
      await database?.drop();
    });

    it('are accepted and delivered to', async () => {
      const api = await startApi({
        DATABASE_URL: database!.url,
        WEBHOOK_WORKER: 'in-process',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      });
      const tenant = await createTenantIn(orm!);
      const event = await deliveredTo(api, tenant.key, 'allowed');
      expect(event.type).toBe('event.created');
      await api.stop('SIGTERM');
    });
  });
});
