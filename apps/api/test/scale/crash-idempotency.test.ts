import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getTestOrm } from '../setup';
import {
  createTenantIn,
  issueTickets,
  request,
  startApi,
  stopAll,
  until,
  type ApiProcess,
  type Tenant,
  UNLIMITED_RATES,
} from './harness';

const TICKETS = 1200;
const WORKERS = 8;
/** The server is killed once this many requests have been answered. */
const KILL_AFTER = 240;

interface Sent {
  key: string;
  kind: 'event' | 'checkin';
  path: string;
  body: Record<string, unknown>;
  /** The first answer, if the server sent one before it was killed. */
  first?: { status: number; body: unknown };
  failed?: boolean;
}

describe('the server killed (SIGKILL) in the middle of idempotent writes', () => {
  let tenant: Tenant;
  let ticketIds: string[];
  let api: ApiProcess;
  const databaseUrl = inject('databaseUrl');

  beforeAll(async () => {
    const orm = await getTestOrm();
    tenant = await createTenantIn(orm);
    ({ ticketIds } = await issueTickets(orm, tenant.organisationId, TICKETS));
    api = await startApi({ DATABASE_URL: databaseUrl, ...UNLIMITED_RATES });
  }, 120_000);
  afterAll(() => stopAll());

  it('runs every effect once, and replays every committed one with its first answer', async () => {
    const run = `crash-${Date.now()}`;
    const sent: Sent[] = [];
    let answered = 0;
    let next = 0;
    let killed = false;

    const worker = async () => {
      while (!killed && next < TICKETS) {
        const index = next++;
        const kind = index % 2 === 0 ? 'checkin' : 'event';
        const entry: Sent = {
          key: `${run}-${index}`,
          kind,
          path: kind === 'checkin' ? '/api/v1/checkins' : '/api/v1/events',
          body:
            kind === 'checkin'
              ? { ticket_id: ticketIds[index]!, gate: 'Crash' }
              : {
                  name: `${run}-${index}`,
                  timezone: 'Europe/London',
                  starts_at: '2027-09-01T18:00:00Z',
                  ends_at: '2027-09-01T23:00:00Z',
                  currency: 'GBP',
                },
        };
        sent.push(entry);
        try {
          const answer = await request(api.baseUrl, 'POST', entry.path, {
            key: tenant.key,
            body: entry.body,
            headers: { 'idempotency-key': entry.key },
          });
          entry.first = { status: answer.status, body: answer.body };
          if (++answered === KILL_AFTER) {
            killed = true;
            api.child.kill('SIGKILL');
          }
        } catch {
          entry.failed = true;
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    await api.exited;
    const cut = sent.filter((entry) => entry.failed);
    expect(sent.filter((entry) => entry.first).length).toBeGreaterThanOrEqual(KILL_AFTER);

    // Which effects committed, as the database tells after the crash.
    const orm = await getTestOrm();
    const committed = async (entry: Sent): Promise<number> => {
      const [row] =
        entry.kind === 'event'
          ? await orm.em
              .fork()
              .execute<{ n: string }[]>(
                'select count(*) as n from events where organisation_id = ? and name = ?',
                [tenant.organisationId, entry.body.name],
              )
          : await orm.em
              .fork()
              .execute<{ n: string }[]>(
                'select count(*) as n from checkins where organisation_id = ? and ticket_id = ?',
                [tenant.organisationId, entry.body.ticket_id],
              );
      return Number(row!.n);
    };
    const committedBefore = new Map<string, number>();
    for (const entry of sent) committedBefore.set(entry.key, await committed(entry));

    api = await startApi({ DATABASE_URL: databaseUrl, ...UNLIMITED_RATES });
    for (const entry of sent) {
      const retry = await until(`an answer to ${entry.key} other than 409`, async () => {
        const answer = await request(api.baseUrl, 'POST', entry.path, {
          key: tenant.key,
          body: entry.body,
          headers: { 'idempotency-key': entry.key },
        });
        return answer.status === 409 ? null : answer;
      });
      const context = JSON.stringify({ entry, status: retry.status, body: retry.body });
      expect(retry.status, context).toBe(201);
      if (committedBefore.get(entry.key) === 1) {
        // The effect committed: the retry is its stored answer, whether or not the first
        // answer reached the client.
        expect(retry.headers.get('idempotent-replayed'), context).toBe('true');
        if (entry.first) expect(retry.body, context).toEqual(entry.first.body);
      } else {
        expect(entry.first, context).toBeUndefined();
        expect(retry.headers.get('idempotent-replayed'), context).toBeNull();
      }
    }
    // Every effect exists exactly once.
    for (const entry of sent) expect(await committed(entry), entry.key).toBe(1);
    expect(cut.length + sent.filter((entry) => entry.first).length).toBe(sent.length);
  });
});
