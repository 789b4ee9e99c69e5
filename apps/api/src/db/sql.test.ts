import { describe, expect, it } from 'vitest';
import { numbered } from './sql';

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
