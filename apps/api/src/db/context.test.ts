import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { entities } from '../modules/entities';
import { Organisation } from '../modules/organisations/organisation.entity';
import { boundedTransaction } from './context';
import { createOrm, type Orm } from './orm';
import { pgPool, run } from './sql';

/** Write transactions: one `pg` connection each, the ORM's statements and plain SQL together. */
describe('boundedTransaction', () => {
  let orm: Orm;
  let commits = 0;

  beforeAll(async () => {
    orm = await createOrm({ entities, databaseUrl: inject('databaseUrl'), poolMax: 2 });
    orm.em.getEventManager().registerSubscriber({
      afterTransactionCommit: () => {
        commits++;
      },
    });
  });
  afterAll(() => orm.close());

  const organisationsNamed = async (name: string) =>
    (
      await run<{ id: string }>(orm.em.fork(), {
        text: 'select id from organisations where name = ?',
        params: [name],
      })
    ).length;

  /** An organisation created through the ORM and renamed by plain SQL, in one transaction. */
  const createAndRename = (tx: EntityManager, name: string) => {
    const org = tx.create(Organisation, {
      name: `${name} (draft)`,
      plan: 'free',
      planChangedAt: null,
    });
    return {
      org,
      rename: () =>
        run(tx, { text: 'update organisations set name = ? where id = ?', params: [name, org.id] }),
    };
  };

  it('commits the ORM’s entities and plain statements together, then says so once', async () => {
    const name = `tx-commit-${randomUUID()}`;
    const before = commits;
    const id = await boundedTransaction(orm.em.fork(), async (tx) => {
      const { org, rename } = createAndRename(tx, name);
      await tx.flush();
      await rename();
      return org.id;
    });
    expect(commits).toBe(before + 1);
    const [row] = await run<{ name: string }>(orm.em.fork(), {
      text: 'select name from organisations where id = ?',
      params: [id],
    });
    expect(row?.name).toBe(name);
  });

  it('writes the entities it holds at the end, unflushed, in the same transaction', async () => {
    const name = `tx-flush-${randomUUID()}`;
    await boundedTransaction(orm.em.fork(), (tx) => {
      tx.create(Organisation, { name, plan: 'free', planChangedAt: null });
      return Promise.resolve();
    });
    expect(await organisationsNamed(name)).toBe(1);
  });

  it('rolls everything back when the work throws, and the connection serves on', async () => {
    const name = `tx-throw-${randomUUID()}`;
    const before = commits;
    const failure = await boundedTransaction(orm.em.fork(), async (tx) => {
      const { rename } = createAndRename(tx, name);
      await tx.flush();
      await rename();
      throw new Error('refused');
    }).catch((error: unknown) => error);
    expect(String(failure)).toContain('refused');
    expect(commits).toBe(before);
    expect(await organisationsNamed(name)).toBe(0);
    const pool = await pgPool(orm.em);
    expect(pool.totalCount - pool.idleCount).toBe(0);
  });

  it('does not pass a transaction whose statement failed for committed, even when the work went on', async () => {
    const name = `tx-failed-${randomUUID()}`;
    const before = commits;
    const failure = await boundedTransaction(orm.em.fork(), async (tx) => {
      await run(tx, {
        text: `insert into organisations (id, name, plan, created_at, updated_at)
               values (?, ?, 'free', now(), now())`,
        params: [`org_${randomUUID()}`, name],
      });
      // The work swallows the error of a failed statement: PostgreSQL has aborted the transaction.
      await run(tx, { text: 'select 1 / 0', params: [] }).catch(() => undefined);
    }).catch((error: unknown) => error);
    expect(String(failure)).toMatch(/ROLLBACK/);
    expect(commits).toBe(before);
    expect(await organisationsNamed(name)).toBe(0);
  });

  it('closes a connection that died in the transaction instead of handing it on', async () => {
    const failure = await boundedTransaction(orm.em.fork(), async (tx) => {
      await run(tx, { text: 'select pg_terminate_backend(pg_backend_pid())', params: [] });
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    // Both connections of the pool answer.
    const answers = await Promise.all(
      [0, 1].map(() =>
        boundedTransaction(orm.em.fork(), async (tx) => {
          const [row] = await run<{ ok: number }>(tx, { text: 'select 1 as ok', params: [] });
          return row?.ok;
        }),
      ),
    );
    expect(answers).toEqual([1, 1]);
  });

  it('takes a root transaction’s entity manager again only when it ended holding nothing', async () => {
    const managers: EntityManager[] = [];
    const plain = () =>
      boundedTransaction(orm.em, async (tx) => {
        managers.push(tx);
        await run(tx, { text: 'select 1 as ok', params: [] });
      });
    await plain();
    await plain();
    expect(managers[1]).toBe(managers[0]);
    expect(managers[1]!.isInTransaction()).toBe(false);

    // One that loaded an entity is not taken again, and what it held is not in the next one.
    const name = `tx-spare-${randomUUID()}`;
    const id = await boundedTransaction(orm.em.fork(), (tx) =>
      Promise.resolve(createAndRename(tx, name).org.id),
    );
    const held = await boundedTransaction(orm.em, async (tx) => {
      managers.push(tx);
      return (await tx.findOneOrFail(Organisation, id)).id;
    });
    expect(held).toBe(id);
    await boundedTransaction(orm.em, async (tx) => {
      managers.push(tx);
      await run(tx, { text: 'select 1 as ok', params: [] });
      expect(tx.getUnitOfWork(false).getIdentityMap().values()).toEqual([]);
    });
    expect(managers[3]).not.toBe(managers[2]);

    // Transactions at the same time each have their own.
    const concurrent: EntityManager[] = [];
    await Promise.all(
      [0, 1].map(() =>
        boundedTransaction(orm.em, async (tx) => {
          concurrent.push(tx);
          await run(tx, { text: 'select pg_sleep(0.05)', params: [] });
        }),
      ),
    );
    expect(concurrent[0]).not.toBe(concurrent[1]);

    // A fork of the caller's own entity manager starts with what that one holds: never a spare.
    const own = orm.em.fork();
    const forked = await boundedTransaction(own, (tx) => Promise.resolve(tx));
    expect([...managers, ...concurrent]).not.toContain(forked);
  });
});
