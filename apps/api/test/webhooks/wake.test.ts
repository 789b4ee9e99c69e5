import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Orm } from '../../src/db/orm';
import { createEvent } from '../../src/modules/events/event.service';
import { createOrganisation } from '../../src/modules/organisations/organisation.service';
import type { WebhookEngine } from '../../src/modules/webhooks/webhook-engine';
import { eventInput } from '../fixtures';
import { sleep, until } from '../scale/harness';
import { createMigratedDatabase, localWebhookEngine, type MigratedDatabase } from '../setup';

// An API server's worker is woken by the server's own commits instead of asking the database
// for changes several times a second (src/serve.ts). A database of its own: the run's shared one
// gets changes from every test file, which would keep any fan-out busy.
describe('the webhook fan-out woken by commits', () => {
  // Unset if the set-up failed part way: the clean-up does what there is to do.
  let database: MigratedDatabase | undefined;
  let orm: Orm | undefined;
  let engine: WebhookEngine | undefined;
  let rounds: { mock: { calls: unknown[] } };

  beforeAll(async () => {
    database = await createMigratedDatabase('boxoffice_wake');
    orm = database.orm;
    // Without a commit, no round for ten minutes: longer than the test.
    engine = localWebhookEngine(database.url, { idlePollIntervalMs: 600_000 });
    rounds = vi.spyOn(engine, 'fanOut');
    engine.followCommits(orm.em);
    await engine.start();
    // The first round, at start, finds nothing: then no round for ten minutes.
    await until('the first round', () => rounds.mock.calls.length > 0);
    await sleep(500);
    expect(rounds.mock.calls.length).toBe(1);
  });

  afterAll(async () => {
    await engine?.stop(2000);
    await database?.drop();
  });

  it('starts a round when a transaction of its ORM commits, and goes idle again', async () => {
    const organisation = await createOrganisation(orm!.em.fork(), { name: 'Wake', plan: 'pro' });
    // That commit's rounds done.
    await sleep(1000);
    const idle = rounds.mock.calls.length;
    await createEvent(
      { em: orm!.em.fork(), organisationId: organisation.id, livemode: true },
      eventInput('Wakes the fan-out'),
    );
    await until('a round after the commit', () => rounds.mock.calls.length > idle, {
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    // A woken round is followed by one more (a record may sit behind a transaction still
    // running), then rounds stop until the next commit.
    await sleep(1000);
    const settled = rounds.mock.calls.length;
    expect(settled - idle).toBeGreaterThanOrEqual(2);
    expect(settled - idle).toBeLessThanOrEqual(4);
    await sleep(1000);
    expect(rounds.mock.calls.length).toBe(settled);
  });
});
