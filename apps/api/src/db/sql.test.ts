import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { entities } from '../modules/entities';
import { boundedTransaction } from './context';
import { createOrm, type Orm } from './orm';
import { run } from './sql';

describe('run', () => {
  let orm: Orm;

  beforeAll(async () => {
    // One connection: every statement below meets the statements prepared before it.
    orm = await createOrm({ entities, databaseUrl: inject('databaseUrl'), poolMax: 1 });
  });
  afterAll(() => orm.close());

  it("numbers the ORM's placeholders as PostgreSQL's, leaving a question mark in quotes alone", async () => {
    const rows = await run<Record<string, unknown>>(orm.em.fork(), {
      text: `select 'why?' as "what?", ?::int as a, 'it''s ?' as b, ?::jsonb as c`,
      params: [1, '{"x":2}'],
    });
    expect(rows).toEqual([{ 'what?': 'why?', a: 1, b: "it's ?", c: { x: 2 } }]);
  });

  it('refuses placeholders and values that disagree, at every run of a text', async () => {
    for (let i = 0; i < 2; i++) {
      await expect(
        run(orm.em.fork(), { text: 'select ?::int, ?::int', params: [1] }),
      ).rejects.toThrow('statement has 2 placeholders for 1 values');
    }
    await expect(run(orm.em.fork(), { text: "select '?'", params: [1] })).rejects.toThrow(
      'statement has 0 placeholders for 1 values',
    );
  });

  /** The connection's prepared statements with this text (the protocol's, not `PREPARE`'s). */
  const preparedAs = (text: string) =>
    run<{ from_sql: boolean }>(orm.em.fork(), {
      text: 'select from_sql from pg_prepared_statements where statement = ?',
      params: [text],
    });

  it('prepares a statement once per connection, in a transaction and outside one', async () => {
    const text = 'select ?::int + 1 as next';
    const outside = await run<{ next: number }>(orm.em.fork(), { text, params: [1] });
    const inside = await boundedTransaction(orm.em.fork(), (tx) =>
      run<{ next: number }>(tx, { text, params: [2] }),
    );
    expect([outside[0]?.next, inside[0]?.next]).toEqual([2, 3]);
    expect(await preparedAs('select $1::int + 1 as next')).toEqual([{ from_sql: false }]);
  });

  it('runs texts past the cap of names unprepared', async () => {
    const texts = Array.from({ length: 520 }, (_, i) => `select ?::int + ${i} as value`);
    for (const [i, text] of texts.entries()) {
      const [row] = await run<{ value: number }>(orm.em.fork(), { text, params: [1] });
      expect(row?.value).toBe(1 + i);
    }
    const numberedText = (i: number) => `select $1::int + ${i} as value`;
    expect(await preparedAs(numberedText(texts.length - 1))).toEqual([]);
    expect(await preparedAs(numberedText(0))).toHaveLength(1);
  });
});
