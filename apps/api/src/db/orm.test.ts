import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { entities } from '../modules/entities';
import { exec, statement, transaction } from './driver';
import { createOrm, QUERY_TIMEOUT_MESSAGE, type Orm } from './orm';

const NO_STATEMENT_TIMEOUT = statement('set local statement_timeout = 0', () => []);
const SLEEP = statement<never, { ms: number }>('select pg_sleep($1)', (v) => [v.ms / 1000]);

const BOUND_MS = 400;

/**
 * Runs `pg_sleep` statements in one transaction, PostgreSQL's own statement timeout (set a little
 * under the bound) lifted: only this process's bound can stop them.
 */
const sleepInTransaction = (orm: Orm, sleepsMs: number[]) =>
  transaction(orm.em.fork(), async (tx) => {
    await exec(tx, NO_STATEMENT_TIMEOUT, undefined);
    for (const ms of sleepsMs) await exec(tx, SLEEP, { ms });
  });

describe('the bound on each statement', () => {
  let orm: Orm;

  beforeAll(async () => {
    orm = await createOrm({
      entities,
      databaseUrl: inject('databaseUrl'),
      poolMax: 2,
      queryTimeoutMs: BOUND_MS,
    });
  });
  afterAll(() => orm.close());

  const pid = () =>
    orm.em
      .fork()
      .getConnection()
      .execute<{ pid: number }[]>('select pg_backend_pid() as pid')
      .then(([row]) => row!.pid);

  it('fails a statement that runs past it, closes its connection, and the pool serves on', async () => {
    const started = performance.now();
    const failure = await sleepInTransaction(orm, [5_000]).then(
      () => null,
      (error: unknown) => error,
    );
    const waitedMs = performance.now() - started;

    expect(String(failure)).toContain(QUERY_TIMEOUT_MESSAGE);
    expect(waitedMs).toBeGreaterThanOrEqual(BOUND_MS);
    expect(waitedMs).toBeLessThan(3_000);
    // Both connections of the pool answer again.
    const pids = await Promise.all([pid(), pid()]);
    expect(pids.every((value) => value > 0)).toBe(true);
  });

  it('applies to each statement, not to a transaction of several short ones', async () => {
    const statements = 5;
    const each = Math.round((BOUND_MS * 0.6) / 10) * 10;
    const started = performance.now();
    await sleepInTransaction(
      orm,
      Array.from({ length: statements }, () => each),
    );
    // Together they ran well past the bound; none of them alone did.
    expect(performance.now() - started).toBeGreaterThan(BOUND_MS * 2);
  });
});
