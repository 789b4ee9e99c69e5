import { describe, expect, it } from 'vitest';
import { nextCursorOf } from './shared';

describe('nextCursorOf', () => {
  it('reads the cursor of the rel="next" link', () => {
    expect(nextCursorOf('</api/v1/events?limit=100&cursor=abc.DEF_1-2>; rel="next"')).toBe(
      'abc.DEF_1-2',
    );
    expect(
      nextCursorOf(
        '<https://x.test/a?cursor=p>; rel="prev", </a?status=draft%2Cpaid&cursor=n>; rel=next',
      ),
    ).toBe('n');
  });

  it('is undefined without a next link or its cursor', () => {
    expect(nextCursorOf(null)).toBeUndefined();
    expect(nextCursorOf('</a?cursor=p>; rel="prev"')).toBeUndefined();
    expect(nextCursorOf('</a?page=2>; rel="next"')).toBeUndefined();
    expect(nextCursorOf('garbage')).toBeUndefined();
  });
});
