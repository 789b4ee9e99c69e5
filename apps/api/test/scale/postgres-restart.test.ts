import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../../src/db/orm';
import { entities } from '../../src/modules/entities';
import {
  countBy,
  createTenantIn,
  issueTickets,
  request,
  sleep,
  startApi,
  startMigratedPostgres,
  stopScratchSuite,
  UNLIMITED_RATES,
  until,
  type ApiProcess,
  type ScratchPostgres,
  type Tenant,
} from './harness';

type Phase = 'before' | 'down' | 'after';

interface Outcome {
  kind: 'checkin' | 'read';
  instance: 0 | 1;
  /** The phase when the request was sent. */
  phase: Phase;
  ticketId?: string;
  status?: number;
  body?: any;
  retryAfter?: string | null;
  contentType?: string | null;
  /** A connection error or the client timeout: the API hung or went away. */
  error?: string;
}

const TICKETS = 600;
const WORKERS = 6;

// Its own PostgreSQL (embedded, on a fixed port), so stopping it disturbs no other test.
describe('PostgreSQL restarted under load', () => {
  let db: ScratchPostgres;
  let apis: [ApiProcess, ApiProcess];
  let tenant: Tenant;
  let eventId: string;
  let ticketIds: string[];

  beforeAll(async () => {
    const started = await startMigratedPostgres();
    db = started.db;
    const { orm } = started;
    try {
      tenant = await createTenantIn(orm);
      ({ eventId, ticketIds } = await issueTickets(orm, tenant.organisationId, TICKETS));
    } finally {
      await orm.close();
    }
    const env = { DATABASE_URL: db.url, ...UNLIMITED_RATES };
    apis = await Promise.all([startApi(env), startApi(env)]);
  });
  afterAll(async () => {
    // Unset where beforeAll failed before it got to it; the ORM was closed there.
    await stopScratchSuite(undefined, db);
  });

  it('answers 503 or succeeds during the outage, recovers on its own, and loses no admission', async () => {
    const outcomes: Outcome[] = [];
    let phase: Phase = 'before';
    let running = true;
    let next = 0;

    const send = async (
      kind: Outcome['kind'],
      instance: 0 | 1,
      call: () => ReturnType<typeof request>,
      ticketId?: string,
    ): Promise<Outcome> => {
      const outcome: Outcome = { kind, instance, phase, ticketId };
      try {
        const result = await call();
        outcome.status = result.status;
        outcome.body = result.body;
        outcome.retryAfter = result.headers.get('retry-after');
        outcome.contentType = result.headers.get('content-type');
      } catch (error) {
        outcome.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
      outcomes.push(outcome);
      return outcome;
    };

    // Doors scanning a stream of different tickets, and readers, spread over both instances.
    const worker = async (w: number) => {
      for (let round = 0; running; round++) {
        const instance = ((w + round) % 2) as 0 | 1;
        const api = apis[instance];
        const ticketId = ticketIds[next++];
        const results: Outcome[] = [];
        if (ticketId) {
          results.push(
            await send(
              'checkin',
              instance,
              () =>
                request(api.baseUrl, 'POST', '/api/v1/checkins', {
                  key: tenant.key,
                  body: { ticket_id: ticketId, gate: `gate-${w}` },
                }),
              ticketId,
            ),
          );
        }
        results.push(
          await send('read', (1 - instance) as 0 | 1, () =>
            request(
              apis[1 - instance]!.baseUrl,
              'GET',
              `/api/v1/tickets?event_id=${eventId}&limit=20`,
              {
                key: tenant.key,
              },
            ),
          ),
        );
        // A door that got no answer waits a little before the next scan, as a real one would.
        await sleep(results.every((r) => r.status && r.status < 500) ? 5 : 100);
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));

    const succeeded = (kind: Outcome['kind'], instance: 0 | 1, during: Phase) =>
      outcomes.filter(
        (o) =>
          o.kind === kind &&
          o.instance === instance &&
          o.phase === during &&
          (o.status === 200 || o.status === 201),
      ).length;
    const everywhere = (during: Phase, atLeast: number) =>
      ([0, 1] as const).every(
        (i) =>
          succeeded('checkin', i, during) >= atLeast && succeeded('read', i, during) >= atLeast,
      );

    try {
      await until('traffic to flow before the outage', () => everywhere('before', 10));

      phase = 'down';
      await db.stop();
      const refused = (kind: Outcome['kind'], instance: 0 | 1) =>
        outcomes.filter(
          (o) =>
            o.kind === kind && o.instance === instance && o.phase === 'down' && o.status === 503,
        ).length;
      await until('both instances to answer check-ins and reads with 503', () =>
        ([0, 1] as const).every((i) => refused('checkin', i) >= 5 && refused('read', i) >= 5),
      );
      for (const api of apis) {
        const ready = await request(api.baseUrl, 'GET', '/readyz');
        expect(ready.status).toBe(503);
        expect(ready.body.checks.database).toBe('unavailable');
      }

      await db.start();
      phase = 'after';
      await until(
        'both instances to serve check-ins and reads again',
        () => everywhere('after', 10),
        {
          timeoutMs: 20_000,
        },
      );
    } finally {
      running = false;
      await load;
    }

    // Nothing hung past the client timeout, no connection failed, nothing was a 500.
    expect(outcomes.filter((o) => o.error)).toEqual([]);
    const allowed = { checkin: [201, 503], read: [200, 503] };
    expect(outcomes.filter((o) => !allowed[o.kind].includes(o.status!))).toEqual([]);
    for (const o of outcomes.filter((o) => o.status === 503)) {
      expect(o.contentType).toBe('application/json; charset=utf-8');
      expect(o.body.error).toBe('Service temporarily unavailable');
      expect(o.retryAfter).toMatch(/^[1-9]\d*$/);
    }
    expect(countBy(outcomes, (o) => `${o.phase} ${o.status}`)).toMatchObject({
      'down 503': expect.any(Number),
      'after 200': expect.any(Number),
      'after 201': expect.any(Number),
    });
    for (const api of apis) {
      expect(api.hasExited()).toBe(false);
      expect((await request(api.baseUrl, 'GET', '/readyz')).status).toBe(200);
    }

    // Every admission that was answered 201 is in the database, once; and a ticket is checked in
    // exactly when it has its check-in row (the state change and the row are one transaction).
    const orm: Orm = await createOrm({ entities, databaseUrl: db.url });
    try {
      const connection = orm.em.fork().getConnection();
      const rows = await connection.execute<{ id: string; ticket_id: string }[]>(
        'select id, ticket_id from checkins where organisation_id = ?',
        [tenant.organisationId],
      );
      const byTicket = countBy(rows, (row) => row.ticket_id);
      expect(Object.entries(byTicket).filter(([, n]) => n > 1)).toEqual([]);
      const stored = new Map(rows.map((row) => [row.id, row.ticket_id]));
      const admitted = outcomes.filter((o) => o.status === 201);
      for (const o of admitted) expect(stored.get(o.body.data.id)).toBe(o.ticketId);
      const checkedIn = await connection.execute<{ id: string }[]>(
        `select id from tickets where event_id = ? and status = 'checked_in'`,
        [eventId],
      );
      expect(checkedIn.map((t) => t.id).sort()).toEqual(Object.keys(byTicket).sort());
      // A scan answered 503 may or may not have committed before the connection dropped; one that
      // was never tried is untouched.
      const tried = new Set(outcomes.filter((o) => o.kind === 'checkin').map((o) => o.ticketId));
      expect(Object.keys(byTicket).filter((id) => !tried.has(id))).toEqual([]);
    } finally {
      await orm.close();
    }
  }, 90_000);
});
