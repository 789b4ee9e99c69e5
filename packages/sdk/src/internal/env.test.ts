import { afterEach, describe, expect, it, vi } from 'vitest';
import { isBrowserLike, readEnv, uuid } from './env';

afterEach(() => {
  vi.unstubAllGlobals();
  delete process.env.BOXOFFICE_TEST_VALUE;
});

describe('readEnv', () => {
  it('reads a variable, trimmed', () => {
    process.env.BOXOFFICE_TEST_VALUE = '  value  ';
    expect(readEnv('BOXOFFICE_TEST_VALUE')).toBe('value');
  });

  it('treats unset, empty and blank alike', () => {
    expect(readEnv('BOXOFFICE_TEST_VALUE')).toBeUndefined();
    process.env.BOXOFFICE_TEST_VALUE = '';
    expect(readEnv('BOXOFFICE_TEST_VALUE')).toBeUndefined();
    process.env.BOXOFFICE_TEST_VALUE = ' \t';
    expect(readEnv('BOXOFFICE_TEST_VALUE')).toBeUndefined();
  });

  it('reads nothing where there is no process (browsers, workers)', () => {
    vi.stubGlobal('process', undefined);
    expect(readEnv('PATH')).toBeUndefined();
  });
});

describe('isBrowserLike', () => {
  it('is false in Node', () => {
    expect(isBrowserLike()).toBe(false);
  });

  it('is true only with both window and document', () => {
    vi.stubGlobal('window', {});
    expect(isBrowserLike()).toBe(false);
    vi.stubGlobal('document', {});
    expect(isBrowserLike()).toBe(true);
  });
});

describe('uuid', () => {
  it('makes distinct v4 UUIDs', () => {
    const ids = Array.from({ length: 100 }, uuid);
    expect(new Set(ids).size).toBe(100);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});
