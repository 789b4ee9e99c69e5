import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { entities } from '../modules/entities';
import { boundedTransaction } from './context';
import { createOrm, type Orm } from './orm';
import { numbered, run } from './sql';

describe('numbered', () => {
  it("numbers the ORM's placeholders as PostgreSQL's, in order", () => {
    expect(
      numbered({
        text: 'insert into t (a, b) values (?, ?::jsonb), (?, ?::jsonb)',
        params: [1, '{}', 2, '[]'],
      }),
    ).toBe('insert into t (a, b) values ($1, $2::jsonb), ($3, $4::jsonb)');
  });

  it('leaves a question mark in a quoted literal or identifier alone', () => {
    expect(
      numbered({
        text: `select 'why?' as "what?", ? as a, 'it''s ?' as b where c = ?`,
        params: [1, 2],
      }),
    ).toBe(`select 'why?' as "what?", $1 as a, 'it''s ?' as b where c = $2`);
  });

  it('returns a statement without placeholders as it is', () => {
    expect(numbered({ text: 'select 1', params: [] })).toBe('select 1');
  });

  it('refuses placeholders and values that disagree', () => {
    expect(() => numbered({ text: 'select ?, ?', params: [1] })).toThrow(
      'statement has 2 placeholders for 1 values',
    );
    expect(() => numbered({ text: "select '?'", params: [1] })).toThrow(
      'statement has 0 placeholders for 1 values',
    );
  });
});

describe('run', () => {
  let orm: Orm;

  beforeAll(async () => {
    // One connection: every statement below meets the statements prepared before it.
    orm = await createOrm({ entities, databaseUrl: inject('databaseUrl'), poolMax: 1 });
  });
  afterAll(() => orm.close());

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
    expect(await preparedAs(numbered({ text, params: [0] }))).toEqual([{ from_sql: false }]);
  });

  it('runs texts past the cap of names unprepared', async () => {
    const texts = Array.from({ length: 520 }, (_, i) => `select ?::int + ${i} as value`);
    for (const [i, text] of texts.entries()) {
      const [row] = await run<{ value: number }>(orm.em.fork(), { text, params: [1] });
      expect(row?.value).toBe(1 + i);
    }
    const last = numbered({ text: texts.at(-1)!, params: [0] });
    expect(await preparedAs(last)).toEqual([]);
    expect(await preparedAs(numbered({ text: texts[0]!, params: [0] }))).toHaveLength(1);
  });
});
