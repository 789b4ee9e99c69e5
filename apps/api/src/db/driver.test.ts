import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { entities } from '../modules/entities';
import { Organisation } from '../modules/organisations/organisation.entity';
import {
  clock,
  copyLine,
  exec,
  execCopy,
  execText,
  poolOf,
  savepoint,
  statement,
  transaction,
} from './driver';
import { createOrm, type Orm } from './orm';

/** Plain statements for the tests below, declared once as the services declare theirs. */
const NAMED = statement<{ id: string }, { name: string }>(
  'select id from organisations where name = $1',
  (v) => [v.name],
);
const NAME_OF = statement<{ name: string }, { id: string }>(
  'select name from organisations where id = $1',
  (v) => [v.id],
);
const RENAME = statement<never, { id: string; name: string }>(
  'update organisations set name = $2 where id = $1',
  (v) => [v.id, v.name],
);
const sql = (text: string) => statement<Record<string, unknown>>(text, () => []);

/** An ORM of its own for a suite (two connections), counting the commits it announces. */
function useCountedOrm() {
  const suite = { orm: undefined as unknown as Orm, commits: 0 };
  beforeAll(async () => {
    suite.orm = await createOrm({ entities, databaseUrl: inject('databaseUrl'), poolMax: 2 });
    suite.orm.em.getEventManager().registerSubscriber({
      afterTransactionCommit: () => {
        suite.commits++;
      },
    });
  });
  afterAll(() => suite.orm.close());
  return suite;
}

/**
 * Write transactions: one `pg` connection each, the ORM's statements and plain SQL together. These
 * tests also pin what the driver relies on of MikroORM (a transaction context whose `executeQuery`
 * runs the flush, the unit of work's stacks, the commit event, `onCreate` hooks given the
 * transaction's entity manager): an ORM upgrade that changes any of it fails here.
 */
describe('transaction', () => {
  const suite = useCountedOrm();

  const organisationsNamed = async (name: string) =>
    (await exec(suite.orm.em.fork(), NAMED, { name })).length;

  /** An organisation created through the ORM and renamed by plain SQL, in one transaction. */
  const createAndRename = (tx: EntityManager, name: string) => {
    const org = tx.create(Organisation, {
      name: `${name} (draft)`,
      plan: 'free',
      planChangedAt: null,
    });
    return {
      org,
      rename: () => exec(tx, RENAME, { id: org.id, name }),
    };
  };

  it('commits the ORM’s entities and plain statements together, then says so once', async () => {
    const name = `tx-commit-${randomUUID()}`;
    const before = suite.commits;
    const id = await transaction(suite.orm.em.fork(), async (tx) => {
      const { org, rename } = createAndRename(tx, name);
      await tx.flush();
      await rename();
      return org.id;
    });
    expect(suite.commits).toBe(before + 1);
    const [row] = await exec(suite.orm.em.fork(), NAME_OF, { id });
    expect(row?.name).toBe(name);
  });

  it('writes the entities it holds at the end, unflushed, in the same transaction', async () => {
    const name = `tx-flush-${randomUUID()}`;
    await transaction(suite.orm.em.fork(), (tx) => {
      tx.create(Organisation, { name, plan: 'free', planChangedAt: null });
      return Promise.resolve();
    });
    expect(await organisationsNamed(name)).toBe(1);
  });

  it('rolls everything back when the work throws, and the connection serves on', async () => {
    const name = `tx-throw-${randomUUID()}`;
    const before = suite.commits;
    const failure = await transaction(suite.orm.em.fork(), async (tx) => {
      const { rename } = createAndRename(tx, name);
      await tx.flush();
      await rename();
      throw new Error('refused');
    }).catch((error: unknown) => error);
    expect(String(failure)).toContain('refused');
    expect(suite.commits).toBe(before);
    expect(await organisationsNamed(name)).toBe(0);
    const pool = await poolOf(suite.orm.em);
    expect(pool.totalCount - pool.idleCount).toBe(0);
  });

  it('does not pass a transaction whose statement failed for committed, even when the work went on', async () => {
    const name = `tx-failed-${randomUUID()}`;
    const before = suite.commits;
    const failure = await transaction(suite.orm.em.fork(), async (tx) => {
      await execText(
        tx,
        `insert into organisations (id, name, plan, created_at, updated_at)
         values ($1, $2, 'free', now(), now())`,
        [`org_${randomUUID()}`, name],
      );
      // The work swallows the error of a failed statement: PostgreSQL has aborted the transaction.
      await exec(tx, sql('select 1 / 0'), undefined).catch(() => undefined);
    }).catch((error: unknown) => error);
    expect(String(failure)).toMatch(/ROLLBACK/);
    expect(suite.commits).toBe(before);
    expect(await organisationsNamed(name)).toBe(0);
  });

  it('closes a connection that died in the transaction instead of handing it on', async () => {
    const failure = await transaction(suite.orm.em.fork(), async (tx) => {
      await exec(tx, sql('select pg_terminate_backend(pg_backend_pid())'), undefined);
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    // Both connections of the pool answer.
    const answers = await Promise.all(
      [0, 1].map(() =>
        transaction(suite.orm.em.fork(), async (tx) => {
          const [row] = await exec(tx, sql('select 1 as ok'), undefined);
          return row?.ok;
        }),
      ),
    );
    expect(answers).toEqual([1, 1]);
  });

  it('writes the removals it holds at the end, unflushed', async () => {
    const name = `tx-remove-${randomUUID()}`;
    const id = await transaction(suite.orm.em.fork(), (tx) =>
      Promise.resolve(createAndRename(tx, name).org.id),
    );
    await transaction(suite.orm.em.fork(), async (tx) => {
      tx.remove(await tx.findOneOrFail(Organisation, id));
    });
    expect(await exec(suite.orm.em.fork(), NAME_OF, { id })).toEqual([]);
  });

  it('stamps every row it writes with its one clock, the ORM’s and the statements’', async () => {
    const name = `tx-clock-${randomUUID()}`;
    const { org, at } = await transaction(suite.orm.em.fork(), async (tx) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const { org } = createAndRename(tx, name);
      return { org, at: clock(tx) };
    });
    expect(org.createdAt).toEqual(at);
    expect(org.updatedAt).toEqual(at);
    // Outside a transaction the clock is the time of the call.
    const before = Date.now();
    expect(clock(suite.orm.em.fork()).getTime()).toBeGreaterThanOrEqual(before);
  });

  it('gives a transaction an entity manager of its own, holding what the caller held', async () => {
    const own = suite.orm.em.fork();
    const org = own.create(Organisation, {
      name: `tx-own-${randomUUID()}`,
      plan: 'free',
      planChangedAt: null,
    });
    await own.flush();
    const [a, b] = await Promise.all(
      [0, 1].map(() => transaction(own, (tx) => Promise.resolve(tx))),
    );
    expect(a).not.toBe(b);
    expect(a).not.toBe(own);
    expect(a!.getUnitOfWork().getIdentityMap().values()).toContain(org);
  });
});

/**
 * Savepoints: a part of a transaction that fails on its own. The batch of check-ins relies on each
 * part's rollback leaving the rest of the transaction as it was, and on change records written in a
 * part carrying the transaction's id (the webhook fan-out's order), which these tests pin.
 */
describe('savepoint', () => {
  const suite = useCountedOrm();

  const insertOrganisation = (tx: EntityManager, name: string) =>
    execText(
      tx,
      `insert into organisations (id, name, plan, created_at, updated_at)
       values ($1, $2, 'free', now(), now())`,
      [`org_${randomUUID()}`, name],
    );
  const organisationsNamed = async (prefix: string) =>
    (
      await execText<{ name: string }>(
        suite.orm.em.fork(),
        'select name from organisations where name like $1 order by name',
        [`${prefix}%`],
      )
    ).map((row) => row.name);

  it('rolls back the part that failed, and commits the parts around it once', async () => {
    const prefix = `sp-parts-${randomUUID()}`;
    const before = suite.commits;
    const outcomes = await transaction(suite.orm.em.fork(), async (tx) => {
      const results: string[] = [];
      for (const [part, fails] of [
        ['a', false],
        ['b', true],
        ['c', false],
      ] as const) {
        results.push(
          await savepoint(tx, async () => {
            await insertOrganisation(tx, `${prefix}-${part}`);
            if (fails) throw new Error(`refused ${part}`);
            return `kept ${part}`;
          }).catch((error: unknown) => String(error)),
        );
      }
      return results;
    });
    expect(outcomes).toEqual(['kept a', 'Error: refused b', 'kept c']);
    expect(await organisationsNamed(prefix)).toEqual([`${prefix}-a`, `${prefix}-c`]);
    expect(suite.commits).toBe(before + 1);
  });

  it('lets the transaction go on after a statement of the part failed', async () => {
    const prefix = `sp-failed-${randomUUID()}`;
    await transaction(suite.orm.em.fork(), async (tx) => {
      const failure = await savepoint(tx, async () => {
        await insertOrganisation(tx, `${prefix}-lost`);
        await exec(tx, sql('select 1 / 0'), undefined);
      }).catch((error: unknown) => error);
      expect(String(failure)).toMatch(/division by zero/);
      await insertOrganisation(tx, `${prefix}-after`);
    });
    expect(await organisationsNamed(prefix)).toEqual([`${prefix}-after`]);
  });

  it('nests: an inner part rolls back alone, an outer one with what it holds', async () => {
    const prefix = `sp-nested-${randomUUID()}`;
    await transaction(suite.orm.em.fork(), async (tx) => {
      await savepoint(tx, async () => {
        await insertOrganisation(tx, `${prefix}-outer`);
        await savepoint(tx, async () => {
          await insertOrganisation(tx, `${prefix}-inner`);
          throw new Error('inner');
        }).catch(() => undefined);
      });
      await savepoint(tx, async () => {
        await insertOrganisation(tx, `${prefix}-second`);
        await savepoint(tx, () => insertOrganisation(tx, `${prefix}-second-inner`));
        throw new Error('outer');
      }).catch(() => undefined);
    });
    expect(await organisationsNamed(prefix)).toEqual([`${prefix}-outer`]);
  });

  it('writes with the transaction’s own id, as outside the part', async () => {
    const sameId = await transaction(suite.orm.em.fork(), async (tx) => {
      const xact = sql('select pg_current_xact_id()::text as id');
      const [outside] = await exec(tx, xact, undefined);
      const [inside] = await savepoint(tx, () => exec(tx, xact, undefined));
      return outside?.id === inside?.id;
    });
    expect(sameId).toBe(true);
  });

  it('fails the transaction when a failed part leaves entities to write', async () => {
    const name = `sp-entity-${randomUUID()}`;
    const failure = await transaction(suite.orm.em.fork(), async (tx) => {
      await savepoint(tx, () => {
        tx.create(Organisation, { name, plan: 'free', planChangedAt: null });
        return Promise.reject(new Error('refused'));
      }).catch((error: unknown) => {
        // The part's own refusal would let the transaction go on: this one must not.
        if (String(error) === 'Error: refused') return;
        throw error;
      });
    }).catch((error: unknown) => error);
    expect(String(failure)).toMatch(/entities the unit of work would still write/);
    expect(await organisationsNamed(name)).toEqual([]);
  });

  it('needs a transaction', async () => {
    await expect(savepoint(suite.orm.em.fork(), () => Promise.resolve(1))).rejects.toThrow(
      /part of a transaction/,
    );
  });
});

describe('exec', () => {
  let orm: Orm;

  beforeAll(async () => {
    // One connection: every statement below meets the statements prepared before it.
    orm = await createOrm({ entities, databaseUrl: inject('databaseUrl'), poolMax: 1 });
  });
  afterAll(() => orm.close());

  /** The connection's prepared statements with this text (the protocol's, not `PREPARE`'s). */
  const preparedAs = (text: string) =>
    execText<{ from_sql: boolean }>(
      orm.em.fork(),
      'select from_sql from pg_prepared_statements where statement = $1',
      [text],
    );

  it('prepares a statement once per connection, in a transaction and outside one', async () => {
    const next = statement<{ next: number }, { n: number }>('select $1::int + 1 as next', (v) => [
      v.n,
    ]);
    const outside = await exec(orm.em.fork(), next, { n: 1 });
    const inside = await transaction(orm.em.fork(), (tx) => exec(tx, next, { n: 2 }));
    const again = await exec(orm.em.fork(), next, { n: 3 });
    expect([outside[0]?.next, inside[0]?.next, again[0]?.next]).toEqual([2, 3, 4]);
    expect(await preparedAs(next.text)).toEqual([{ from_sql: false }]);
  });

  it('reads timestamps as dates, and the rest as pg does', async () => {
    const [row] = await exec(
      orm.em.fork(),
      sql(`select timestamptz '2026-11-23 14:05:09.123456+00' as at, '{"x":2}'::jsonb as doc,
                  array['a','b'] as list, 12::bigint as big, true as yes`),
      undefined,
    );
    expect(row).toEqual({
      at: new Date('2026-11-23T14:05:09.123Z'),
      doc: { x: 2 },
      list: ['a', 'b'],
      big: '12',
      yes: true,
    });
  });
});

describe('execCopy', () => {
  let orm: Orm;
  const table = `copy_${randomUUID().replaceAll('-', '')}`;
  const copy = `copy ${table} (n, text, at, yes, ratio) from stdin`;
  const rows = () =>
    execText<{
      n: number;
      text: string | null;
      at: Date | null;
      yes: boolean | null;
      ratio: number | null;
    }>(orm.em.fork(), `select n, text, at, yes, ratio from ${table} order by n`, []);

  beforeAll(async () => {
    // One connection: a COPY that failed must leave it usable or have it replaced.
    orm = await createOrm({ entities, databaseUrl: inject('databaseUrl'), poolMax: 1 });
    await execText(
      orm.em.fork(),
      `create table ${table} (n int primary key, text text, at timestamptz, yes boolean, ratio real)`,
      [],
    );
  });
  afterAll(async () => {
    await execText(orm.em.fork(), `drop table ${table}`, []);
    await orm.close();
  });

  it('stores every text as it was given, whatever characters it holds', async () => {
    const texts = [
      'plain',
      'tab\there, line\nbreak, return\r, both\r\n',
      'back\\slash, \\N, \\., \\t as written',
      '\\',
      '\\.',
      '',
      'quotes " \' and commas, semicolons;',
      'Zoë ☃ 😀 中文',
    ];
    const at = new Date('2026-12-07T06:05:04.321Z');
    await execCopy(
      orm.em.fork(),
      copy,
      texts.map((text, n) => copyLine([n, text, at, n % 2 === 0, n / 4])).join(''),
    );
    expect(await rows()).toEqual(
      texts.map((text, n) => ({ n, text, at, yes: n % 2 === 0, ratio: n / 4 })),
    );
  });

  it('stores null as null, not as text, and leaves NUL out of a text', async () => {
    await execCopy(
      orm.em.fork(),
      copy,
      copyLine([100, null, null, null, null]) + copyLine([101, 'a\0b', null, null, null]),
    );
    expect((await rows()).filter((row) => row.n >= 100)).toEqual([
      { n: 100, text: null, at: null, yes: null, ratio: null },
      { n: 101, text: 'ab', at: null, yes: null, ratio: null },
    ]);
  });

  it('writes nothing of a batch PostgreSQL refuses a row of, and the pool serves on', async () => {
    const before = (await rows()).length;
    // The second row's key is taken already.
    const batch =
      copyLine([200, 'new', null, null, null]) + copyLine([0, 'taken', null, null, null]);
    await expect(execCopy(orm.em.fork(), copy, batch)).rejects.toThrow(/duplicate key/);
    expect((await rows()).length).toBe(before);
    await execCopy(orm.em.fork(), copy, copyLine([200, 'new', null, null, null]));
    expect((await rows()).at(-1)).toMatchObject({ n: 200, text: 'new' });
  });

  it('joins the transaction it is given: rolled back with it', async () => {
    await expect(
      transaction(orm.em.fork(), async (tx) => {
        await execCopy(tx, copy, copyLine([300, 'inside', null, null, null]));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect((await rows()).some((row) => row.n === 300)).toBe(false);
  });
});
