import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { getTestOrm } from '../../test/setup';
import { authenticateKey } from '../modules/api-keys/api-key.service';
import { testOrganisationOf } from '../modules/organisations/test-environment.service';
import { insertRequestLogs, requestLogLine } from '../modules/request-logs/request-log.repository';

const API_DIR = fileURLToPath(new URL('../..', import.meta.url));

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI from source in a child process, on this run's test database. */
function cli(...args: string[]): Promise<CliResult> {
  const env = { ...process.env, DATABASE_URL: inject('databaseUrl'), NODE_ENV: 'test' };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=@boxoffice/source', '--import', 'tsx', 'src/cli.ts', ...args],
      { cwd: API_DIR, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The JSON a successful command printed; fails with its stderr otherwise. */
async function ok<T = any>(...args: string[]): Promise<T> {
  const result = await cli(...args);
  expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as T;
}

/** The error a failing command printed on stderr (one JSON object), with its exit code. */
async function fails(...args: string[]): Promise<{ code: number; body: Record<string, string> }> {
  const result = await cli(...args);
  expect(result.stdout).toBe('');
  return { code: result.code, body: JSON.parse(result.stderr) as Record<string, string> };
}

describe('operator CLI', { timeout: 120_000 }, () => {
  it('prints usage for help and for no arguments', async () => {
    const [help, bare] = await Promise.all([cli('help'), cli()]);
    for (const result of [help, bare]) {
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      for (const command of [
        'migrate',
        'org create',
        'org set-plan',
        'key create',
        'key list',
        'key revoke',
        'logs',
        'seed',
      ]) {
        expect(result.stdout).toContain(command);
      }
    }
  });

  it('reports that migrations are already applied', async () => {
    expect(await ok('migrate')).toEqual({ applied: [] });
  });

  it('creates an organisation, manages its keys and changes its plan', async () => {
    const org = await ok('org', 'create', '--name', 'CLI Test Promotions', '--plan', 'pro');
    expect(org).toMatchObject({ name: 'CLI Test Promotions', plan: 'pro', plan_changed_at: null });
    expect(org.id).toMatch(/^org_[0-9A-Za-z]{24}$/);

    const created = await ok(
      'key',
      'create',
      '--org',
      org.id,
      '--scopes',
      'checkins:write,read',
      '--name',
      'Door app',
    );
    expect(Object.keys(created).slice(0, 2)).toEqual(['id', 'key']);
    expect(created).toMatchObject({
      organisation_id: org.id,
      name: 'Door app',
      scopes: ['read', 'checkins:write'],
      status: 'active',
      revoked_at: null,
    });
    expect(created.key).toMatch(/^bxo_live_[0-9A-Za-z]{32,}$/);
    expect(created.hint).toBe(`bxo_live_…${created.key.slice(-4)}`);

    // The printed key is the real one: the API accepts it.
    const em = (await getTestOrm()).em.fork();
    expect(await authenticateKey(em, created.key)).toMatchObject({
      status: 'active',
      key: { apiKeyId: created.id, organisationId: org.id, plan: 'pro' },
    });

    const listing = await cli('key', 'list', '--org', org.id);
    expect(listing.code).toBe(0);
    expect(listing.stdout).not.toContain(created.key);
    const keys = JSON.parse(listing.stdout) as Record<string, unknown>[];
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ id: created.id, hint: created.hint, status: 'active' });
    expect(keys[0]).not.toHaveProperty('key');

    const revoked = await ok('key', 'revoke', created.id);
    expect(revoked).toMatchObject({ id: created.id, status: 'revoked' });
    expect(revoked.revoked_at).toEqual(expect.any(String));
    expect(await authenticateKey(em, created.key)).toMatchObject({ status: 'revoked' });
    expect(await ok('key', 'list', '--org', org.id)).toEqual([
      expect.objectContaining({ id: created.id, status: 'revoked' }),
    ]);

    const downgraded = await ok('org', 'set-plan', org.id, 'free');
    expect(downgraded).toMatchObject({ id: org.id, plan: 'free' });
    expect(downgraded.plan_changed_at).toEqual(expect.any(String));
  });

  it('makes test keys and test webhook endpoints with --test, for the test environment', async () => {
    const help = await cli('help');
    for (const usage of [
      'key create --org <org_id> --scopes <read,write,checkins:write> [--name <name>] [--test]',
      'key list --org <org_id> [--test]',
      'webhook create --org <org_id> --url <url> [--events <type,type>] [--test]',
      'webhook list --org <org_id> [--test]',
    ]) {
      expect(help.stdout).toContain(usage);
    }
    const org = await ok<{ id: string }>('org', 'create', '--name', 'Tested', '--plan', 'pro');
    const live = await ok('key', 'create', '--org', org.id, '--scopes', 'read');
    const test = await ok('key', 'create', '--org', org.id, '--scopes', 'read', '--test');
    // The same shape as a live key's, for the test environment.
    expect(Object.keys(test)).toEqual(Object.keys(live));
    expect(test.key).toMatch(/^bxo_test_[0-9A-Za-z]{40}$/);
    expect(test.hint).toBe(`bxo_test_…${test.key.slice(-4)}`);
    expect(test.organisation_id).not.toBe(org.id);
    const em = (await getTestOrm()).em.fork();
    expect(await authenticateKey(em, test.key)).toMatchObject({
      status: 'active',
      key: { organisationId: test.organisation_id, livemode: false, plan: 'pro' },
    });
    // Each list shows its own environment's keys (the test one also the sample data's scanner key).
    const liveKeys = await ok<{ id: string }[]>('key', 'list', '--org', org.id);
    const testKeys = await ok<{ id: string }[]>('key', 'list', '--org', org.id, '--test');
    expect(liveKeys.map((k) => k.id)).toEqual([live.id]);
    expect(testKeys.map((k) => k.id)).toContain(test.id);
    expect(testKeys.map((k) => k.id)).not.toContain(live.id);

    const hook = await ok(
      'webhook',
      'create',
      '--org',
      org.id,
      '--url',
      'https://hooks.example.com/test',
      '--test',
    );
    expect(hook).toMatchObject({ livemode: false, secret: expect.stringMatching(/^whsec_/) });
    expect(await ok('webhook', 'list', '--org', org.id)).toEqual([]);
    expect(await ok('webhook', 'list', '--org', org.id, '--test')).toEqual([
      expect.objectContaining({ id: hook.id, livemode: false }),
    ]);
    // A second test key goes to the same test environment.
    const again = await ok('key', 'create', '--org', org.id, '--scopes', 'read', '--test');
    expect(again.organisation_id).toBe(test.organisation_id);
    const unknown = await fails(
      'key',
      'create',
      '--org',
      'org_doesnotexist',
      '--scopes',
      'read',
      '--test',
    );
    expect(unknown).toEqual({
      code: 1,
      body: { error: 'organisation not found', code: 'not_found' },
    });
    const flagWithValue = await fails('key', 'list', '--org', org.id, '--test=yes');
    expect(flagWithValue.code).toBe(2);
  });

  it('registers, lists and deletes webhook endpoints', async () => {
    const org = await ok<{ id: string }>('org', 'create', '--name', 'Hooked', '--plan', 'pro');
    const created = await ok(
      'webhook',
      'create',
      '--org',
      org.id,
      '--url',
      'https://hooks.example.com/boxoffice',
      '--events',
      'checkin.created,order.created',
    );
    expect(created).toMatchObject({
      url: 'https://hooks.example.com/boxoffice',
      events: ['order.created', 'checkin.created'],
      status: 'enabled',
    });
    expect(created.id).toMatch(/^we_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = await ok('webhook', 'list', '--org', org.id);
    expect(listed).toEqual([expect.objectContaining({ id: created.id, url: created.url })]);
    expect(listed[0]).not.toHaveProperty('secret');
    expect(await ok('webhook', 'delete', created.id)).toEqual({ id: created.id, deleted: true });
    expect(await ok('webhook', 'list', '--org', org.id)).toEqual([]);

    const unknownType = await fails(
      'webhook',
      'create',
      '--org',
      org.id,
      '--url',
      'https://x.example',
      '--events',
      'ticket.sold',
    );
    expect(unknownType.code).toBe(2);
    expect(unknownType.body.error).toMatch(/^--events must be one or more of/);
    const loopback = await fails(
      'webhook',
      'create',
      '--org',
      org.id,
      '--url',
      'https://127.0.0.1/hook',
    );
    expect(loopback).toMatchObject({ code: 1, body: { code: 'invalid_webhook_url' } });
    expect(await ok('webhook', 'list', '--org', org.id)).toEqual([]);
  });

  it('seeds demo data into an organisation', async () => {
    const org = await ok('org', 'create', '--name', 'CLI Seed Test');
    expect(org.plan).toBe('free');
    const counts = await ok('seed', '--org', org.id, '--events', '1');
    expect(counts).toMatchObject({ events: 1 });
    expect(counts.tickets).toBeGreaterThan(0);
    expect(counts.attendees).toBe(counts.tickets);
  });

  it('exits with 2 and the usage on bad input', async () => {
    const cases = await Promise.all([
      fails('frobnicate'),
      fails('org'),
      fails('org', 'create'),
      fails('org', 'create', '--name', 'X', '--plan', 'gold'),
      fails('org', 'create', '--name', 'X', '--colour', 'blue'),
      fails('org', 'set-plan', 'org_only'),
      fails('key', 'create', '--org', 'org_x', '--scopes', 'read,admin'),
      fails('seed', '--org', 'org_x', '--events', 'many'),
    ]);
    const [unknown, noSub, noName, badPlan, badFlag, missingArg, badScope, badEvents] = cases;
    for (const failure of cases) {
      expect(failure.code).toBe(2);
      expect(failure.body.error).toEqual(expect.any(String));
      expect(failure.body.usage).toMatch(/^pnpm admin /);
    }
    expect(unknown.body.error).toBe("unknown command 'frobnicate'");
    expect(noSub.body.error).toContain('create, set-plan');
    expect(noName.body.error).toBe('--name is required');
    expect(badPlan.body.error).toBe('plan must be one of: free, pro');
    expect(badFlag.body.error).toContain("'--colour'");
    expect(missingArg.body.error).toBe('missing <plan>');
    expect(badScope.body.error).toContain('read, write, checkins:write');
    expect(badEvents.body.error).toContain('--events');
  });

  it('exits with 1 and the message when the command fails', async () => {
    const [setPlan, revoke, list, keyForNobody] = await Promise.all([
      fails('org', 'set-plan', 'org_doesnotexist', 'pro'),
      fails('key', 'revoke', 'key_doesnotexist'),
      fails('key', 'list', '--org', 'org_doesnotexist'),
      fails('key', 'create', '--org', 'org_doesnotexist', '--scopes', 'read'),
    ]);
    expect(setPlan).toEqual({
      code: 1,
      body: { error: 'organisation not found', code: 'not_found' },
    });
    expect(revoke).toEqual({ code: 1, body: { error: 'API key not found', code: 'not_found' } });
    expect(list).toEqual({ code: 1, body: { error: 'organisation not found', code: 'not_found' } });
    expect(keyForNobody).toEqual({
      code: 1,
      body: { error: 'organisation not found', code: 'not_found' },
    });
  });

  it('prints the latest recorded requests as JSON lines, filtered by status and age', async () => {
    const orm = await getTestOrm();
    const org = await ok('org', 'create', '--name', 'CLI Logs', '--plan', 'pro');
    const test = await testOrganisationOf(orm.em.fork(), org.id);
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000);
    const row = (organisationId: string, id: string, status: number, minutesAgo: number) => ({
      ...SAMPLE_RECORD,
      id,
      request_id: id,
      organisation_id: organisationId,
      livemode: organisationId === org.id,
      status,
      created_at: at(minutesAgo),
      error_body: status >= 400 ? '{"code":"boom"}' : null,
    });
    await insertRequestLogs(
      orm.em,
      [
        row(org.id, 'req_cli_old500', 500, 120),
        row(org.id, 'req_cli_500', 500, 10),
        row(org.id, 'req_cli_404', 404, 5),
        row(org.id, 'req_cli_200', 200, 1),
        row(test, 'req_cli_test503', 503, 2),
      ]
        .map(requestLogLine)
        .join(''),
    );
    const lines = async (...args: string[]) => {
      const result = await cli('logs', '--org', org.id, ...args);
      expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
      return result.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { id: string; error_body: string | null });
    };
    expect((await lines()).map((r) => r.id)).toEqual([
      'req_cli_200',
      'req_cli_404',
      'req_cli_500',
      'req_cli_old500',
    ]);
    expect((await lines('--status', '5xx', '--since', '1h')).map((r) => r.id)).toEqual([
      'req_cli_500',
    ]);
    const [notFound] = await lines('--status', '404', '--limit', '1');
    expect(notFound).toMatchObject({ id: 'req_cli_404', error_body: '{"code":"boom"}' });
    expect((await lines('--test')).map((r) => r.id)).toEqual(['req_cli_test503']);
    const bad = await Promise.all([
      fails('logs', '--org', org.id, '--since', 'yesterday'),
      fails('logs', '--org', org.id, '--status', '6xx'),
      fails('logs', '--status', '500'),
    ]);
    expect(bad.map((failure) => failure.code)).toEqual([2, 2, 2]);
    expect(bad[0].body.error).toContain('--since');
  });
});

/** A record's columns; each test sets those it looks at. */
const SAMPLE_RECORD = {
  api_key_id: null,
  key_hint: null,
  method: 'GET',
  route: '/events',
  path: '/events',
  error_code: null,
  duration_ms: 2,
  idempotency_key: null,
  idempotent_replayed: false,
  client_address: '127.0.0.1',
  user_agent: null,
  sdk_name: null,
  sdk_version: null,
  response_bytes: 2,
  request_body: null,
  request_body_truncated: false,
  request_body_omitted: null,
  error_body_truncated: false,
};
