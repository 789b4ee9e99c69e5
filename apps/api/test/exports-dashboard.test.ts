import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportJobs } from '../src/modules/exports/export-jobs';
import { Visitor } from './dashboard-visitor';
import { startExportJobs, startTestServer, type CallResult, type TestServer } from './setup';

/** The dashboard's exports: asked for, listed and downloaded in the request's mode. */

let jobs: ExportJobs;
let server: TestServer;

beforeAll(async () => {
  jobs = await startExportJobs(1);
  server = await startTestServer({ exportQueue: jobs });
}, 60_000);
afterAll(async () => {
  await server.close();
  await jobs.stop(5_000);
});

const TEST = { 'x-boxoffice-mode': 'test' };
const LIVE = { 'x-boxoffice-mode': 'live' };

async function ready(owner: Visitor, headers: Record<string, string>, id: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const listed: CallResult = await owner.request('GET', '/exports', undefined, headers);
    const found = (listed.body.data as { id: string; status: string }[]).find((e) => e.id === id);
    if (found?.status === 'ready') return found;
    if (Date.now() > deadline) throw new Error(`export ${id} is ${found?.status ?? 'not listed'}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A test-mode export of `resource` asked for by `owner`, once ready. */
async function readyTestExport(owner: Visitor, resource: string) {
  const made = await owner.request('POST', '/exports', { resource }, TEST);
  expect(made.status, JSON.stringify(made.body)).toBe(202);
  return ready(owner, TEST, made.body.data.id as string);
}

describe('the dashboard’s exports', () => {
  it('are made, listed and downloaded in the request’s mode, and not found in the other', async () => {
    const owner = new Visitor(server);
    await owner.signUp();
    const testMade = await owner.request('POST', '/exports', { resource: 'tickets' }, TEST);
    expect(testMade.status, JSON.stringify(testMade.body)).toBe(202);
    expect(testMade.body.data).toMatchObject({ status: 'pending', livemode: false });
    const liveMade = await owner.request('POST', '/exports', { resource: 'events' }, LIVE);
    expect(liveMade.status).toBe(202);

    const testExport = await ready(owner, TEST, testMade.body.data.id as string);
    await ready(owner, LIVE, liveMade.body.data.id as string);
    const testList = await owner.request('GET', '/exports', undefined, TEST);
    expect(testList.body.data.map((e: { id: string }) => e.id)).toEqual([testExport.id]);

    const file = await owner.request('GET', `/exports/${testExport.id}/file`, undefined, TEST);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/x-ndjson');
    const rows = (file.body as string).split('\n').filter(Boolean);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => (JSON.parse(row) as { livemode: boolean }).livemode === false)).toBe(
      true,
    );
    const other = await owner.request('GET', `/exports/${testExport.id}/file`, undefined, LIVE);
    expect(other.status).toBe(404);

    // A reset of the test data takes its exports with it, and leaves the live ones.
    const reset = await owner.request('POST', '/test-environment/reset', undefined);
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect((await owner.request('GET', '/exports', undefined, TEST)).body.data).toEqual([]);
    expect((await owner.request('GET', '/exports', undefined, LIVE)).body.data).toHaveLength(1);

    // The request is refused as the public API refuses it.
    const refused = await owner.request('POST', '/exports', { resource: 'refunds' }, LIVE);
    expect(refused.status).toBe(400);
    expect(refused.body.details[0].field).toBe('resource');
  });

  it('download by a link that names the mode, and refuse a link whose mode contradicts the header', async () => {
    const owner = new Visitor(server);
    await owner.signUp();
    const { id } = await readyTestExport(owner, 'events');

    // A plain link sends no mode header: its query says which mode the export is of.
    const linked = await owner.request('GET', `/exports/${id}/file?mode=test`);
    expect(linked.status).toBe(200);
    expect(linked.headers.get('content-disposition')).toBe(`attachment; filename="${id}.ndjson"`);
    const first = JSON.parse((linked.body as string).split('\n')[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ id: expect.stringMatching(/^evt_/), livemode: false });
    expect((await owner.request('GET', `/exports/${id}/file`)).status).toBe(404);
    expect((await owner.request('GET', `/exports/${id}/file?mode=live`)).status).toBe(404);

    const contradicted = await owner.request(
      'GET',
      `/exports/${id}/file?mode=live`,
      undefined,
      TEST,
    );
    expect(contradicted.status).toBe(400);
    expect(contradicted.body).toMatchObject({ code: 'invalid_request' });
    expect(contradicted.body.error).toMatch(/mode/);
    const unknown = await owner.request('GET', `/exports/${id}/file?mode=sandbox`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toEqual(expect.any(String));
  });

  it('belong to their organisation: another one neither lists nor downloads them', async () => {
    const owner = new Visitor(server);
    await owner.signUp();
    const { id } = await readyTestExport(owner, 'orders');

    const stranger = new Visitor(server);
    await stranger.signUp();
    for (const headers of [TEST, LIVE]) {
      const listed = await stranger.request('GET', '/exports', undefined, headers);
      expect(listed.status).toBe(200);
      expect(listed.body.data).toEqual([]);
      const file = await stranger.request('GET', `/exports/${id}/file`, undefined, headers);
      expect(file.status).toBe(404);
      expect(file.body.code).toBe('not_found');
    }
    // Signed out, nothing at all.
    const anonymous = new Visitor(server);
    expect((await anonymous.request('GET', '/exports', undefined, TEST)).status).toBe(401);
    expect((await anonymous.request('GET', `/exports/${id}/file?mode=test`)).status).toBe(401);
  });

  it('take a list’s own filters, and refuse a bad request with its reason, making nothing', async () => {
    const owner = new Visitor(server);
    await owner.signUp();
    const filtered = await owner.request(
      'POST',
      '/exports',
      {
        resource: 'tickets',
        format: 'csv',
        filters: {
          event_id: 'evt_0000000000000000000000000',
          status: ['valid', 'void'],
          updated_since: '2026-01-31T18:00:00Z',
        },
      },
      LIVE,
    );
    expect(filtered.status, JSON.stringify(filtered.body)).toBe(202);
    expect(filtered.body.data).toMatchObject({
      resource: 'tickets',
      format: 'csv',
      livemode: true,
      filters: {
        event_id: 'evt_0000000000000000000000000',
        status: ['valid', 'void'],
        updated_since: '2026-01-31T18:00:00.000Z',
      },
    });
    await ready(owner, LIVE, filtered.body.data.id as string);

    const refusals: [unknown, string][] = [
      [{ resource: 'refunds' }, 'resource'],
      [{ resource: 'events', format: 'xlsx' }, 'format'],
      [{ resource: 'events', filters: { event_id: 'evt_1' } }, 'filters'],
      [{ resource: 'tickets', filters: { status: ['sold'] } }, 'filters.status'],
      [{ resource: 'orders', filters: { updated_since: 'yesterday' } }, 'filters.updated_since'],
      [{ resource: 'checkins', filters: { updated_since: '2026-01-31T18:00:00Z' } }, 'filters'],
    ];
    for (const [body, field] of refusals) {
      for (const headers of [LIVE, TEST]) {
        const refused = await owner.request('POST', '/exports', body, headers);
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.body.error, JSON.stringify(body)).toEqual(expect.any(String));
        expect(refused.body.details[0].field, JSON.stringify(refused.body)).toBe(field);
      }
    }
    const bareMode = await owner.request(
      'POST',
      '/exports',
      { resource: 'events' },
      {
        'x-boxoffice-mode': 'staging',
      },
    );
    expect(bareMode.status).toBe(400);

    const live = await owner.request('GET', '/exports', undefined, LIVE);
    expect(live.body.data.map((e: { id: string }) => e.id)).toEqual([filtered.body.data.id]);
    expect((await owner.request('GET', '/exports', undefined, TEST)).body.data).toEqual([]);
  });
});
