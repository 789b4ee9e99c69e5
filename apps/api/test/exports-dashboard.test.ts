import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ExportJobs } from '../src/modules/exports/export-jobs';
import { Visitor } from './dashboard-visitor';
import { getTestOrm, startTestServer, type CallResult, type TestServer } from './setup';

/** The dashboard's exports: asked for, listed and downloaded in the request's mode. */

let jobs: ExportJobs;
let server: TestServer;

beforeAll(async () => {
  jobs = new ExportJobs({
    databaseUrl: inject('databaseUrl'),
    logger: pino({ level: 'silent' }),
    em: (await getTestOrm()).em,
    retentionMs: 3600_000,
    concurrency: 1,
  });
  await jobs.start();
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
});
