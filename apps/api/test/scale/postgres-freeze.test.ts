import { randomUUID } from 'node:crypto';
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

type Phase = 'before' | 'frozen' | 'after';

interface Outcome {
  kind: 'checkin' | 'read';
  phase: Phase;
  ticketId?: string;
  status?: number;
  retryAfter?: string | null;
  ms: number;
  error?: string;
}

const TICKETS = 400;
const WORKERS = 6;
const CONNECT_TIMEOUT_MS = 1_000;
const QUERY_TIMEOUT_MS = 1_500;
/** The documented bound: DB_CONNECT_TIMEOUT_MS + DB_QUERY_TIMEOUT_MS. */
const BOUND_MS = CONNECT_TIMEOUT_MS + QUERY_TIMEOUT_MS;

/** Lets a stopped backend go on; one that has exited meanwhile (its connection closed) is fine. */
function resume(pid: number): void {
  try {
    process.kill(pid, 'SIGCONT');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

// Its own PostgreSQL (embedded), frozen with SIGSTOP: it keeps its connections open and answers
// nothing, as a database whose host hangs does. Freezing it disturbs no other test.
describe('PostgreSQL frozen under load', () => {
  let db: ScratchPostgres;
  let orm: Orm;
  let api: ApiProcess;
  let tenant: Tenant;
  let ticketIds: string[];

  beforeAll(async () => {
    ({ db, orm } = await startMigratedPostgres());
    tenant = await createTenantIn(orm);
    ({ ticketIds } = await issueTickets(orm, tenant.organisationId, TICKETS));
    api = await startApi({
      DATABASE_URL: db.url,
      DB_POOL_MAX: '4',
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
      ...UNLIMITED_RATES,
    });
  });
  afterAll(async () => {
    // Unset where beforeAll failed before it got to them.
    await (db as ScratchPostgres | undefined)?.thaw().catch(() => undefined);
    await stopScratchSuite(orm, db);
  });

  it('answers every request within the bound (503 while frozen), recovers, and half-writes nothing', async () => {
    let phase: Phase = 'before';
    let running = true;
    let next = 0;
    const outcomes: Outcome[] = [];

    const worker = async (index: number) => {
      for (let i = 0; running; i++) {
        const kind = (i + index) % 2 === 0 ? 'checkin' : 'read';
        const ticketId = kind === 'checkin' ? ticketIds[next++ % TICKETS] : undefined;
        const sentIn = phase;
        const started = performance.now();
        try {
          const answer =
            kind === 'checkin'
              ? await request(api.baseUrl, 'POST', '/api/v1/checkins', {
                  key: tenant.key,
                  body: { ticket_id: ticketId },
                  headers: { 'idempotency-key': randomUUID() },
                  timeoutMs: 15_000,
                })
              : await request(api.baseUrl, 'GET', '/api/v1/events?limit=5', {
                  key: tenant.key,
                  timeoutMs: 15_000,
                });
          outcomes.push({
            kind,
            phase: sentIn,
            ticketId,
            status: answer.status,
            retryAfter: answer.headers.get('retry-after'),
            ms: performance.now() - started,
          });
        } catch (error) {
          outcomes.push({
            kind,
            phase: sentIn,
            ticketId,
            ms: performance.now() - started,
            error: error instanceof Error ? error.message : String(error),
          });
        }
      }
    };
    const workers = Array.from({ length: WORKERS }, (_, index) => worker(index));

    await sleep(1_000);
    await db.freeze();
    phase = 'frozen';
    await sleep(3 * BOUND_MS);
    await db.thaw();
    phase = 'after';
    // Recovery: once thawed, requests are answered from the database again without a restart
    // (a check-in of a ticket scanned before, once the list has wrapped, is a 409 from it).
    await until(
      'requests to be answered after the thaw',
      () => {
        const recent = outcomes.filter((outcome) => outcome.phase === 'after').slice(-12);
        return recent.length === 12 && recent.every((o) => [200, 201, 409].includes(o.status!));
      },
      { timeoutMs: 15_000 },
    );
    running = false;
    await Promise.all(workers);

    const summary = JSON.stringify(countBy(outcomes, (o) => `${o.phase} ${o.status ?? o.error}`));
    // Nothing hung or was cut: every request got an answer, within the documented bound (plus
    // scheduling slack on a loaded machine).
    expect(
      outcomes.filter((o) => o.error),
      summary,
    ).toEqual([]);
    const slowest = Math.max(...outcomes.map((o) => o.ms));
    expect(slowest, summary).toBeLessThan(BOUND_MS + 1_500);

    const frozen = outcomes.filter((o) => o.phase === 'frozen');
    expect(frozen.filter((o) => o.status === 503).length, summary).toBeGreaterThan(0);
    for (const outcome of outcomes) {
      // 201 / 409 for check-ins (a ticket scanned again after the list wrapped), 200 for reads.
      expect([200, 201, 409, 503], summary).toContain(outcome.status);
      if (outcome.status === 503) expect(outcome.retryAfter).toMatch(/^\d+$/);
    }

    // Every admission acknowledged is in the database, and nothing is half-written: each ticket's
    // state agrees with its check-ins and its attendee (a transaction abandoned mid-way on a
    // frozen connection must not be committed by the next request on that connection).
    const admitted = new Set(
      outcomes.filter((o) => o.kind === 'checkin' && o.status === 201).map((o) => o.ticketId!),
    );
    const em = orm.em.fork();
    const rows = await em
      .getConnection()
      .execute<
        { id: string; status: string; entries: number; exits: number; attendee_in: boolean }[]
      >(
        `select t.id, t.status,
              count(c.id) filter (where c.direction = 'entry')::int as entries,
              count(c.id) filter (where c.direction = 'exit')::int as exits,
              bool_or(a.checked_in) as attendee_in
         from tickets t
         join attendees a on a.ticket_id = t.id
         left join checkins c on c.ticket_id = t.id
        where t.organisation_id = ?
        group by t.id, t.status`,
        [tenant.organisationId],
      );
    for (const row of rows) {
      const inside = row.entries > row.exits;
      expect(row.status === 'checked_in', JSON.stringify(row)).toBe(inside);
      expect(row.attendee_in, JSON.stringify(row)).toBe(inside);
      if (admitted.has(row.id)) expect(row.entries).toBeGreaterThan(0);
    }
  });

  it('closes a connection whose statement timed out: its slot is freed, its transaction never committed', async () => {
    // One connection: whatever the pool hands out next is the connection that timed out.
    const single = await createOrm({
      entities,
      databaseUrl: db.url,
      poolMax: 1,
      queryTimeoutMs: 1_000,
    });
    const marker = `abandoned-${randomUUID()}`;
    try {
      const em = single.em.fork();
      const [event] = await em
        .getConnection()
        .execute<{ id: string }[]>('select id from events where organisation_id = ? limit 1', [
          tenant.organisationId,
        ]);
      const failure = await em
        .transactional(async (tx) => {
          const connection = tx.getConnection();
          const [backend] = await connection.execute<{ pid: number }[]>(
            'select pg_backend_pid() as pid',
            [],
            'all',
            tx.getTransactionContext(),
          );
          const pid = backend!.pid;
          await connection.execute(
            'update events set name = ? where id = ?',
            [marker, event!.id],
            'all',
            tx.getTransactionContext(),
          );
          // The backend stops answering mid-transaction, after the update.
          process.kill(pid, 'SIGSTOP');
          try {
            await connection.execute('select 1', [], 'all', tx.getTransactionContext());
          } finally {
            // Resumed only after the ORM's ROLLBACK has timed out as well.
            setTimeout(() => resume(pid), 2_500).unref();
          }
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(String(failure)).toContain('Query read timeout');

      // The next transaction on the pool commits; the abandoned update must not come with it.
      await until('the pool to serve again', async () =>
        single.em
          .fork()
          .transactional((tx) =>
            tx.getConnection().execute('select 1', [], 'all', tx.getTransactionContext()),
          )
          .then(
            () => true,
            () => false,
          ),
      );
      const [row] = await orm.em
        .fork()
        .getConnection()
        .execute<{ name: string }[]>('select name from events where id = ?', [event!.id]);
      expect(row!.name).not.toBe(marker);
    } finally {
      await single.close();
    }
  });
});
